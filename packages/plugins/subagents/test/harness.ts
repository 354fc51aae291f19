// Test-only helpers: a scripted "brain" that answers each conversation by its first user message,
// and a condition wait (never a fixed sleep).
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type CreateAgentOptions, type ModelRequest, type SessionEvent, type Store } from '@bosun/core'
import subagents from '../src/index.js'
import type { Options } from '../src/options.js'

/**
 * Responses per conversation, keyed by the text of its first user message (a parent's prompt, a
 * child's task); the n-th request of a conversation (n = assistant messages so far) gets the n-th
 * response, then `done: <first text>`.
 */
export type Script = Record<string, readonly (ScriptedResponse | ((request: ModelRequest) => ScriptedResponse))[]>

export function brain(script: Script) {
  const route = (request: ModelRequest): ScriptedResponse => {
    const first = request.messages.find((m) => m.role === 'user')
    const key = first && first.role === 'user' ? first.content.map((b) => ('text' in b ? b.text : '')).join('') : ''
    const n = request.messages.filter((m) => m.role === 'assistant').length
    const entry = script[key]?.[n] ?? { text: `done: ${key}` }
    return typeof entry === 'function' ? entry(request) : entry
  }
  return scripted({ responses: Array.from({ length: 2000 }, () => route) })
}

export interface ParentOptions extends Partial<CreateAgentOptions> {
  script?: Script
  options?: Options
}

export async function parent({ script = {}, options = {}, ...rest }: ParentOptions = {}) {
  const store = rest.store ?? memoryStore()
  return createAgent({ model: brain(script), store, sessionId: 'root', plugins: [[subagents, options]], ...rest })
}

/** Resolves once `condition` holds (checked on every tick), or fails after `ms` with `what`. */
export async function until(condition: () => boolean, what = 'condition', ms = 10_000): Promise<void> {
  const start = Date.now()
  while (!condition()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

export const ofType = (events: readonly SessionEvent[], type: string) => events.filter((e) => e.type === type)

export async function read(store: Store, id: string) {
  const stored = store.read ? await store.read(id) : await store.open(id)
  if (!stored) throw new Error(`no session ${id}`)
  if ('writer' in stored) await (stored as { writer: { close(): Promise<void> } }).writer.close()
  return stored
}

export function toolResults(events: readonly SessionEvent[]) {
  return ofType(events, 'tool/result').map((e) => e.data as { callId: string; content: { type: string; text?: string }[]; isError?: boolean })
}

export const textOf = (content: readonly { type: string; text?: string }[]) => content.map((b) => b.text ?? '').join('')

/** The child ids a parent's log records, in spawn order. */
export const childIds = (events: readonly SessionEvent[]) => ofType(events, 'subagent/spawned').map((e) => (e.data as { childId: string }).childId)

/** The id in the last "Started background agent <id>" tool result the model saw. */
export function startedId(request: ModelRequest): string {
  for (const message of [...request.messages].reverse()) {
    if (message.role !== 'tool') continue
    const match = /Started background agent ([0-9a-f-]{36})/.exec(message.content.map((b) => ('text' in b ? b.text : '')).join(''))
    if (match) return match[1]!
  }
  throw new Error('no background agent was started')
}

/** A promise with its opener, for tools a test releases by hand. */
export function gate() {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

/** Like {@link until}, for a condition that reads the store. */
export async function eventually(condition: () => Promise<boolean>, what = 'condition', ms = 10_000): Promise<void> {
  const start = Date.now()
  while (!(await condition())) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** The events of a stored session, as they are now. */
export async function eventsOf(store: Store, id: string): Promise<readonly SessionEvent[]> {
  return (await read(store, id)).events
}
