import type { AgentHooks } from '../hooks.js'
import type { Inbox } from '../inbox/inbox.js'
import type { ModelAdapter } from '../model.js'
import type { Session } from '../session/session.js'
import type { Surface } from '../session/surface.js'
import type { ToolRegistry } from '../tools/registry.js'
import type { LoggedRequestContext } from './request-context.js'
import type { TurnAbort } from '../when-aborted.js'

/** How the system prompt is produced for each step. */
export type SystemPrompt = string | ((context: { turn: number; step: number; session: Session }) => string | Promise<string>)

/** Everything a turn needs, owned by one agent. */
export interface AgentRuntime {
  session: Session
  inbox: Inbox
  surface: Surface
  hooks: AgentHooks
  adapter: ModelAdapter
  tools: ToolRegistry
  system: SystemPrompt
  maxParallelTools: number
  /**
   * The system prompt and tools last logged as `request/context` (null: none yet; undefined: not
   * looked up yet). Kept by {@link logRequestContext}.
   */
  requestContext?: LoggedRequestContext | null
  /** Set when the agent owns its store (`createAgent({ ownsStore })`): `close()` closes it too. */
  closeStore?: () => Promise<void>
}

/** Where the loop is, passed down through one step. */
export interface StepScope {
  turn: number
  step: number
  /** The turn's abort: `abort.aborted` to check, `abort.signal` for adapters, tools and hooks. */
  abort: TurnAbort
}
