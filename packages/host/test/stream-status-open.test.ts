// A session stream's open reads nothing back from its cursor in one go for its status frames
// (status-fold.ts): the status index is made a slice per macrotask, once per live session. Before,
// a stream opened inside a long turn read back every chunk to the turn's start synchronously.
// Real JSONL files, real HTTP on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import { definePlugin, type Session, type SessionEvent } from '@bosun/core'
import { listen, type RunningServer } from '../src/index.js'
import { SLICE_EVENTS } from '../src/log-prefix.js'
import { makeHost, perTest, SseReader, type Frame } from './helpers.js'

const state = perTest()

/** A host on 127.0.0.1 whose one session answers `answer` a character a chunk; its `Session` is kept. */
async function serve(answer: string): Promise<{ server: RunningServer; sessions: Session[] }> {
  const sessions: Session[] = []
  const grab = definePlugin({ name: 'grab-session', setup: (ctx) => void sessions.push(ctx.session) })
  const { host, store } = makeHost(state.dir, () => [{ text: answer, chunkSize: 1 }], {}, [grab])
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // Closed in reverse: the server, the host, then the store (it keeps its journal file open).
  state.closing.push(store, host, server)
  return { server, sessions }
}

const turnEnd = (frames: Frame[]) => frames.find((f) => f.event === 'session.event' && f.data.type === 'turn/end')

describe('host: a session stream\'s open and its status frames', () => {
  it('a stream opened inside a long turn reads its log a slice per macrotask, and says idle at the turn\'s end', async () => {
    const { server, sessions } = await serve('x'.repeat(6 * SLICE_EVENTS))
    await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 's' }) })
    const whole = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`))
    await fetch(`${server.url}/v1/sessions/s/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientMessageId: 'm1', content: 'go' }) })
    const end = Number(turnEnd(await whole.until((frames) => turnEnd(frames) !== undefined, 60_000))!.id)
    await whole.cancel()

    // The most events of the log read within one turn of the event loop while the stream opens.
    const session = sessions[0]!
    const eventAt = session.eventAt.bind(session)
    let inTurn = 0
    let most = 0
    session.eventAt = (seq: number): SessionEvent | undefined => {
      most = Math.max(most, ++inTurn)
      return eventAt(seq)
    }
    let ticking = true
    const tick = (): void => {
      inTurn = 0
      if (ticking) setImmediate(tick)
    }
    tick()
    try {
      // The cursor: the turn's last event before its end, ~6 slices of chunks after its start.
      const stream = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`, { headers: { 'last-event-id': String(end - 1) } }))
      const frames = await stream.until((all) => all.some((f) => f.event === 'session.status'))
      await stream.cancel()
      expect(frames.map((f) => f.event)).toEqual(['hello', 'session.event', 'session.status'])
      expect(frames[2]!.data).toEqual({ status: 'idle', seq: end })
    } finally {
      ticking = false
      session.eventAt = eventAt
    }
    // A slice of the fold or the index at a time (SLICE_EVENTS), not the turn's ~6 slices at once.
    expect(most).toBeLessThan(3 * SLICE_EVENTS)
  }, 90_000)
})
