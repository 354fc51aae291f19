// The session stream says `idle` again after a splice that queues input into an idle session that
// nothing will start (status-fold.ts): an inject, say — the web UI's "Queued, not running" learns it
// live. A waking send does not (its turn/start follows), and a stream from any cursor sends what a
// stream from seq 0 sends after it. Real JSONL files, real HTTP on 127.0.0.1.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { definePlugin, type SessionEvent, type UserMessage } from '@bosun/core'
import { listen } from '../src/index.js'
import { InboxFold } from '../src/log.js'
import { StatusIndex } from '../src/status-fold.js'
import { readFrames } from '../src/stream.js'
import { json, makeHost, perTest, SseReader, stepGate, waitFor, type Frame } from './helpers.js'

const work = perTest()

async function start(plugins: Parameters<typeof makeHost>[3] = []): Promise<string> {
  const { host, store } = makeHost(work.dir, () => [{ text: 'answer', chunkSize: 3, delayMs: 5 }], {}, plugins)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // Closed in reverse: the server, the host, then the store (it keeps its journal file open).
  work.closing.push(store, host, server)
  return server.url
}

function post(url: string, path: string, body: unknown, method = 'POST'): Promise<Response> {
  return fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

/** The frames after the last one `before` held, once one of them is a session.status. */
const nextStatus = (live: SseReader, before: number) => live.until((frames) => frames.slice(before).some((f) => f.event === 'session.status'))

async function open(url: string, path: string): Promise<SseReader> {
  const response = await fetch(`${url}${path}`)
  expect(response.status).toBe(200)
  return new SseReader(response)
}

const spliceOf = (id: string) => (frame: Frame) => frame.event === 'session.event' && frame.data.type === 'agent/inbox/spliced' && frame.data.data.inserted.some((m: { id: string }) => m.id === id)
const turnEnded = (turn: number) => (frames: Frame[]) => frames.some((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.data.turn === turn)
/** What a client folds: events and derived frames, in order (not the hello, nor keep-alives). */
const derived = (frames: Frame[]) => frames.filter((f) => f.event === 'session.event' || f.event === 'session.status').map((f) => (f.event === 'session.status' ? `status ${f.data.status}@${f.data.seq}` : `${f.data.seq} ${f.data.type}`))

describe('host: the status after input queued that nothing will start', () => {
  it('an inject into an idle session is followed by session.status idle at its seq; a follow-up is not, and a replay sends the same frames', async () => {
    const url = await start()
    await post(url, '/v1/sessions', { id: 's' })
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'first' })
    await waitFor(async () => (await json(fetch(`${url}/v1/sessions/s/messages/m1`))).turnEnd === 'completed', 15_000, 'turn 1')
    const live = await open(url, '/v1/sessions/s/stream?from=tail')
    await live.until((frames) => frames.length >= 1)

    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'parked', content: 'later', delivery: 'inject' })
    const afterInject = await live.until((frames) => frames.some((f) => f.event === 'session.status'))
    const splice = afterInject.find(spliceOf('parked'))!
    // Right after the splice and its queues: idle, said at the splice's seq.
    expect(afterInject.slice(afterInject.indexOf(splice) + 1).map((f) => f.event)).toEqual(['session.inbox', 'session.status'])
    expect(afterInject.at(-1)!.data).toEqual({ status: 'idle', seq: splice.data.seq })

    // A follow-up wakes the session: its turn says running, no idle in between; the inject rides it.
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'second' })
    const frames = await live.until(turnEnded(2))
    const followup = frames.find(spliceOf('m2'))!
    const statuses = frames.filter((f) => f.event === 'session.status' && f.data.seq >= followup.data.seq).map((f) => f.data.status)
    expect(statuses).toEqual(['running', 'idle'])
    await live.cancel()

    // Replayed from the first stream's cursor — the same frames.
    const replay = await open(url, `/v1/sessions/s/stream?after=${Number(afterInject[0]!.data.lastSeq)}`)
    const replayed = await replay.until(turnEnded(2))
    await replay.cancel()
    expect(derived(replayed)).toEqual(derived(frames))
  })

  it('a follow-up queued again without a wake — edited or reordered after a Stop — is followed by idle, as core\'s recovery parks it', async () => {
    const gate = stepGate()
    const url = await start([gate.plugin])
    await post(url, '/v1/sessions', { id: 's' })
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'first' })
    await waitFor(() => gate.waiting >= 1, 15_000, 'turn 1 held')
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'second' })
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm3', content: 'third' })
    // A Stop that keeps the queue: m2 and m3 (follow-ups) are parked.
    await post(url, '/v1/sessions/s/cancel', { keepInbox: true })
    await waitFor(async () => (await json(fetch(`${url}/v1/sessions/s/messages/m1`))).turnEnd === 'aborted', 15_000, 'turn 1 aborted')
    const live = await open(url, '/v1/sessions/s/stream?from=tail')
    await live.until((frames) => frames.length >= 1)

    expect((await post(url, '/v1/sessions/s/inbox/m2', { content: 'second, edited' }, 'PATCH')).status).toBe(200)
    let frames = await nextStatus(live, 1)
    const edit = frames.find(spliceOf('m2'))!
    expect(frames.at(-1)!.data).toEqual({ status: 'idle', seq: edit.data.seq })

    let before = frames.length
    expect((await post(url, '/v1/sessions/s/inbox/order', { order: ['m3', 'm2'] }, 'PUT')).status).toBe(200)
    frames = await nextStatus(live, before)
    const reorder = frames.slice(before).find(spliceOf('m3'))!
    expect(frames.at(-1)!.data).toEqual({ status: 'idle', seq: reorder.data.seq })
    // Nothing ran them.
    expect((await json<{ status: string }>(fetch(`${url}/v1/sessions/s`))).status).toBe('idle')
    await live.cancel()
  })

  /** A plugin that rejects the first turn's step, as the rate-limit plugin with onLimit 'requeue' does, and puts its claim back on call. */
  function blockOnce(): { plugin: ReturnType<typeof definePlugin>; putBack: (wake: boolean) => void } {
    let rejected: UserMessage[] = []
    let putBack = (_wake: boolean): void => {}
    const plugin = definePlugin({
      name: 'reject-once',
      setup(ctx) {
        putBack = (wake) => {
          ctx.inbox.requeue('next-turn', 0, rejected)
          if (wake) ctx.agent.wake()
        }
        ctx.hooks.preStep.tapPromise('reject-once', async (decision, { claimed }) => {
          if (rejected.length > 0) return decision
          rejected = [...claimed]
          return { kind: 'reject', by: 'reject-once' }
        })
      },
    })
    return { plugin, putBack: (wake) => putBack(wake) }
  }

  async function blocked(url: string): Promise<SseReader> {
    await post(url, '/v1/sessions', { id: 'b' })
    await post(url, '/v1/sessions/b/messages', { clientMessageId: 'm1', content: 'first' })
    await waitFor(async () => (await json(fetch(`${url}/v1/sessions/b/messages/m1`))).state === 'rejected' && (await json<{ status: string }>(fetch(`${url}/v1/sessions/b`))).status === 'idle', 15_000, 'turn 1 blocked')
    const live = await open(url, '/v1/sessions/b/stream?from=tail')
    await live.until((frames) => frames.length >= 1)
    return live
  }

  /** The derived frames from the splice that put m1 back on. */
  const fromPutBack = (frames: Frame[]) => derived(frames.slice(frames.findIndex(spliceOf('m1'))))

  it('a rejected follow-up a plugin puts back and wakes the agent for (the rate-limit plugin\'s requeue) is not followed by idle before its turn starts', async () => {
    const { plugin, putBack } = blockOnce()
    const url = await start([plugin])
    const live = await blocked(url)
    putBack(true)
    const frames = await live.until(turnEnded(2))
    await live.cancel()
    const [splice, turnStart, running] = fromPutBack(frames)
    expect([splice, turnStart, running]).toEqual([expect.stringMatching(/ agent\/inbox\/spliced$/), expect.stringMatching(/ turn\/start$/), `status running@${turnStart!.split(' ')[0]}`])
  })

  it('one put back without a wake is followed by nothing (the log does not say no wake follows): the next hello says idle after it, and a follow-up runs it', async () => {
    const { plugin, putBack } = blockOnce()
    const url = await start([plugin])
    const live = await blocked(url)
    putBack(false)
    const spliced = await live.until((frames) => frames.some(spliceOf('m1')))
    const seq = Number(spliced.find(spliceOf('m1'))!.data.seq)
    // A stream opened now: its hello says idle at or after the put-back (the web UI's "Queued, not running").
    const again = await open(url, '/v1/sessions/b/stream?from=tail')
    const [hello] = await again.until((frames) => frames.length >= 1)
    await again.cancel()
    expect(hello!.event).toBe('hello')
    expect({ status: hello!.data.status, atOrAfter: Number(hello!.data.lastSeq) >= seq }).toEqual({ status: 'idle', atOrAfter: true })
    // Nothing said on the live stream between the put-back and the turn a follow-up starts.
    await post(url, '/v1/sessions/b/messages', { clientMessageId: 'm2', content: 'second' })
    const frames = await live.until(turnEnded(2))
    await live.cancel()
    // The first status after the put-back: the follow-up's turn running (m1 rides it, m2 the next).
    expect(fromPutBack(frames).find((line) => line.startsWith('status'))).toMatch(/^status running@/)
    expect((await json(fetch(`${url}/v1/sessions/b/messages/m1`))).turnEnd).toBe('completed')
  })

  it('a stream opened at any cursor sends the status frames a stream from seq 0 sends after it', async () => {
    const url = await start()
    await post(url, '/v1/sessions', { id: 'p' })
    // A log with injects before any turn, between turns and during one, and follow-ups.
    const sends: [string, string][] = [['i0', 'inject'], ['f1', 'followup'], ['i1', 'inject'], ['i2', 'inject'], ['f2', 'followup']]
    for (const [id, delivery] of sends) {
      await post(url, '/v1/sessions/p/messages', { clientMessageId: id, content: id, delivery })
      if (delivery === 'followup') await waitFor(async () => (await json(fetch(`${url}/v1/sessions/p/messages/${id}`))).turnEnd !== undefined, 15_000, `${id}'s turn`)
    }
    // An inject after the last turn, then edited: queued again, idle said again.
    await post(url, '/v1/sessions/p/messages', { clientMessageId: 'i3', content: 'i3', delivery: 'inject' })
    expect((await post(url, '/v1/sessions/p/inbox/i3', { content: 'i3, edited' }, 'PATCH')).status).toBe(200)
    const events = (await json<{ events: SessionEvent[] }>(fetch(`${url}/v1/sessions/p/events?limit=1000`))).events
    const log = { events, finishedSteps: new Set<string>() }
    const all = (from: number): string => {
      const fold = new InboxFold(0)
      for (const event of events.slice(0, from + 1)) fold.apply(event)
      // As a stream keeps it: noted up to where it starts, then by its reads.
      const statuses = new StatusIndex()
      for (const event of events.slice(0, from + 1)) statuses.note(event)
      let out = ''
      for (let cursor = from; ; ) {
        const next = readFrames(log, fold, cursor, { chunks: true, batch: 7 }, statuses)
        if (next.out === '') return out
        out += next.out
        cursor = next.cursor
      }
    }
    const whole = all(-1)
    // After each inject that nothing started (i0 before any turn; i1 and i2 after turn 1, i2 with
    // i1 still queued), and at each turn's start and end; never after a follow-up's splice.
    const said = [...whole.matchAll(/event: session.status\ndata: (.*)\n/g)].map((match) => {
      const { status, seq } = JSON.parse(match[1]!) as { status: string; seq: number }
      return `${status} after ${events[seq]!.type === 'agent/inbox/spliced' ? (events[seq]!.data as { inserted: { id: string }[] }).inserted[0]!.id : events[seq]!.type}`
    })
    expect(said).toEqual(['idle after i0', 'running after turn/start', 'idle after turn/end', 'idle after i1', 'idle after i2', 'running after turn/start', 'idle after turn/end', 'idle after i3', 'idle after i3'])
    fc.assert(
      fc.property(fc.integer({ min: -1, max: events.length - 1 }), (cursor) => {
        // What a stream from seq 0 sends after the cursor's event, read from a stream that starts there.
        const next = whole.indexOf(`event: session.event\nid: ${cursor + 1}\n`)
        expect(all(cursor)).toBe(next === -1 ? '' : whole.slice(next))
      }),
      { numRuns: 100 },
    )
  })
})
