// Test-only helpers (excluded from the build): an agent on the scripted model with a memory
// store, and the compact timeline used by inline snapshots.
import { scripted, type ScriptedEntry } from '@bosun/adapter-scripted'
import { createAgent, type CreateAgentOptions } from '../create-agent.js'
import { createUserMessage } from '../session/messages.js'
import { formatTimeline, type TimelineOptions } from '../session/timeline.js'
import type { Agent } from '../loop/agent.js'
import type { SessionEvent } from '../session/events.js'

export interface HarnessOptions extends Omit<Partial<CreateAgentOptions>, 'model'> {
  responses?: ScriptedEntry[]
  model?: CreateAgentOptions['model']
}

/** An agent on the scripted model; a fixed clock keeps `time` deterministic. */
export async function harness(options: HarnessOptions = {}) {
  const { responses = [], model, ...rest } = options
  const adapter = scripted({ responses })
  let tick = 0
  const agent = await createAgent({ model: model ?? adapter, now: () => 1_700_000_000_000 + tick++, ...rest })
  return { agent, adapter, timeline: (opts?: TimelineOptions) => timeline(agent, opts) }
}

export function timeline(agent: Agent | readonly SessionEvent[], options: TimelineOptions = {}): string {
  const events = Array.isArray(agent) ? agent : (agent as Agent).session.events
  return formatTimeline(events as readonly SessionEvent[], { requests: false, ...options })
}

/** A user message with a readable fixed id. */
export function msg(text: string, id = text): ReturnType<typeof createUserMessage> {
  return createUserMessage(text, { id })
}

/** Resolves after `ms` real milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A promise with its resolver, for tools and plugins that a test releases by hand. */
export function gate<T = void>() {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => (open = resolve))
  return { promise, open }
}

/** A tap body that passes its value on only once the test calls `release()`; `entered` resolves when the tap runs. */
export function pausingTap<T>() {
  const entered = gate()
  const released = gate()
  return {
    tap: async (value: T) => {
      entered.open()
      await released.promise
      return value
    },
    entered: entered.promise,
    release: () => released.open(),
  }
}
