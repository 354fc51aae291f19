import { scripted, type ScriptedAdapter, type ScriptedEntry } from '@bosun/adapter-scripted'
import { createAgent, formatTimeline, memoryStore } from '@bosun/core'
import type {
  Agent, CreateAgentOptions, MessageInput, Plugin, PluginEntry, SessionEvent, Store, TimelineOptions, UserMessage,
} from '@bosun/core'
import { turnReport, type TurnReport } from './turn-report.js'

/** Everything of `createAgent` except the model, plus the scripted model's script. */
export interface TestPluginOptions extends Omit<CreateAgentOptions, 'model' | 'plugins'> {
  /** The scripted model's responses, one per model request; when they run out it echoes (`echo: <text>`). */
  responses?: ScriptedEntry[]
  /** Keep a copy of every request in `kit.model.recorded` (what the model saw). Default true. */
  record?: boolean
  /** Other plugins of the agent, set up before the plugin under test (as if listed before it in a config). */
  plugins?: readonly PluginEntry[]
}

/**
 * A plugin running inside a real agent on the scripted model. Each input method waits for the
 * agent to be idle and reports the events it caused; `restart()` reopens the same session with a
 * new agent, as a process restart would.
 */
export interface PluginKit {
  /** The current agent (a new one after each `restart()`). */
  readonly agent: Agent
  /** The scripted model, shared across restarts: `kit.model.push(...)` scripts more responses. */
  readonly model: ScriptedAdapter
  /** The store holding the session (a memory store unless one was given). */
  readonly store: Store
  readonly sessionId: string
  /** The whole log of the session so far. */
  readonly events: readonly SessionEvent[]
  /** The whole log as readable lines (`formatTimeline`, without `request/header` lines unless asked). */
  timeline(options?: TimelineOptions): string
  /** `followup(input)`, then waits for idle: reports the turn (or turns) it caused. */
  send(input: MessageInput): Promise<TurnReport>
  /** `steer(input)`, then waits for idle: reports what it caused. */
  steer(input: MessageInput): Promise<TurnReport>
  /** `inject(input)`: queued for the next step without waking; it rides the next `send`. */
  inject(input: MessageInput): UserMessage
  /** Closes the agent and opens the same session with a new one (same plugins, options and model). */
  restart(): Promise<Agent>
  /** Closes the agent (flushes and releases the session). */
  close(): Promise<void>
}

/**
 * Runs `plugin` with `options` inside a real agent on the scripted model with a memory store.
 * The options are validated as a config's would be: invalid ones reject with
 * `PLUGIN_OPTIONS_INVALID`, and a throwing `setup` with `PLUGIN_SETUP_FAILED`.
 *
 * @example
 * const kit = await testPlugin(maxLength, { max: 10 })
 * const turn = await kit.send('far too long for this plugin')
 * expectRejected(turn, { by: 'max-length', metadata: { max: 10 } })
 */
export async function testPlugin<Options>(
  plugin: Plugin<Options>,
  options?: Options,
  kitOptions: TestPluginOptions = {},
): Promise<PluginKit> {
  const { responses = [], record = true, plugins = [], store = memoryStore(), sessionId = 'test-session', ...rest } = kitOptions
  const model = scripted({ responses, record })
  const entry: PluginEntry = options === undefined ? plugin : [plugin, options]
  const agentOptions: AgentOptions = { ...rest, model, store, sessionId, plugins: [...plugins, entry] }
  return new Kit(await createAgent(agentOptions), model, agentOptions)
}

type AgentOptions = CreateAgentOptions & { store: Store; sessionId: string }

class Kit implements PluginKit {
  #agent: Agent

  constructor(
    agent: Agent,
    readonly model: ScriptedAdapter,
    private readonly options: AgentOptions,
  ) {
    this.#agent = agent
  }

  get agent(): Agent {
    return this.#agent
  }

  get store(): Store {
    return this.options.store
  }

  get sessionId(): string {
    return this.options.sessionId
  }

  get events(): readonly SessionEvent[] {
    return this.#agent.session.events
  }

  timeline(options: TimelineOptions = {}): string {
    return formatTimeline(this.events, { requests: false, ...options })
  }

  send(input: MessageInput): Promise<TurnReport> {
    return this.#report(() => this.#agent.followup(input))
  }

  steer(input: MessageInput): Promise<TurnReport> {
    return this.#report(() => this.#agent.steer(input))
  }

  inject(input: MessageInput): UserMessage {
    return this.#agent.inject(input)
  }

  async restart(): Promise<Agent> {
    await this.#agent.close()
    this.#agent = await createAgent(this.options)
    return this.#agent
  }

  close(): Promise<void> {
    return this.#agent.close()
  }

  /** Runs `act` and reports every event appended until the agent is idle again. */
  async #report(act: () => void): Promise<TurnReport> {
    await this.#agent.whenIdle()
    const from = this.#agent.session.events.length
    act()
    await this.#agent.whenIdle()
    return turnReport(this.#agent.session.events.slice(from))
  }
}
