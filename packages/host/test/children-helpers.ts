// What the subagent-children tests share: plain JSON calls against a running host, and reading a
// session's log through it.
import { definePlugin, type ModelRequest, type SessionEvent } from '@bosun/core'
import type { HostStreamFrame } from '../src/client.js'
import { waitFor } from './helpers.js'

export const textOf = (content: readonly { type: string; text?: string }[]) => content.map((b) => b.text ?? '').join('')

/** The text of a conversation's first user message: a test's scripted model is keyed by it. */
export const firstUserText = (request: ModelRequest): string => {
  const first = request.messages.find((m) => m.role === 'user')
  return first && first.role === 'user' ? textOf(first.content as { type: string; text?: string }[]) : ''
}

export async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}
/** The session's log (empty while it does not exist yet). */
export const events = async (url: string, id: string): Promise<SessionEvent[]> => (await call(url, 'GET', `/v1/sessions/${id}/events?limit=1000`)).body.events ?? []
export const ofType = (list: readonly SessionEvent[], type: string) => list.filter((e) => e.type === type)
/** The first child the session spawned, once its `subagent/spawned` is in the log. */
export const childOf = async (url: string, id: string) => waitFor(async () => (ofType(await events(url, id), 'subagent/spawned')[0]?.data as { childId: string } | undefined)?.childId, 15_000, 'the spawn')
/** Whether the host reports the session idle. */
export const idle = async (url: string, id: string) => (await call(url, 'GET', `/v1/sessions/${id}`)).body.status === 'idle'
/** The text of a request's last user message: what a scripted child answers. */
export const lastUserText = (request: ModelRequest): string => {
  const last = request.messages.findLast((m) => m.role === 'user')
  return last && last.role === 'user' ? textOf(last.content as { type: string; text?: string }[]) : ''
}

/** Holds every step of a session whose task (its first queued message) is one of `held` until the test opens the gate. */
export function taskGate(held: ReadonlySet<string>) {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const plugin = definePlugin({
    name: 'task-gate',
    setup({ hooks, session }) {
      hooks.preStep.tapPromise('task-gate', async (decision) => {
        const first = session.events.find((e) => e.type === 'agent/inbox/spliced')?.data as { inserted: { content: { type: string; text?: string }[] }[] } | undefined
        if (first && held.has(textOf(first.inserted[0]?.content ?? []))) await opened
        return decision
      })
    },
  })
  return { plugin, open }
}

/**
 * Follows a host stream (`client.hostStream()`): `frames` read so far; `until(done)` reads on until
 * `done(frames)` holds (failing if the stream ends first); `stop()` ends it.
 */
export function followHostStream(open: (options: { signal: AbortSignal }) => AsyncIterable<HostStreamFrame>) {
  const controller = new AbortController()
  const frames: HostStreamFrame[] = []
  const stream = open({ signal: controller.signal })[Symbol.asyncIterator]()
  const until = async (done: (all: HostStreamFrame[]) => boolean): Promise<HostStreamFrame[]> => {
    while (!done(frames)) {
      const next = await stream.next()
      if (next.done) throw new Error(`the host stream ended; frames: ${JSON.stringify(frames)}`)
      frames.push(next.value)
    }
    return frames
  }
  return { frames, until, stop: () => controller.abort() }
}
