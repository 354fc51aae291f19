// A fork's stream says the status as the fork's agent has it, though its seed — the parent's log
// up to the cut — queued input the parent's next turn claimed after the cut: core's fork starts its
// queues empty at the seed (inbox/replay.ts; store/repair.ts counts from it too), and so does the
// status index (status-fold.ts, given the header's seedLength). An inject into the fork is followed
// by `idle` (nothing runs it), a follow-up by its turn's `running` and nothing before it, and that
// turn takes the fork's own input only. Forks made while the parent ran (no afterTurn) and with
// afterTurn, each with the parent's follow-up and inject queued in its seed. Real JSONL files, real
// HTTP on 127.0.0.1; the property against core's recovery (forks included) is status-index-core.property.test.
import { describe, expect, it } from 'vitest'
import { definePlugin } from '@bosun/core'
import { listen } from '../src/index.js'
import { json, makeHost, perTest, SseReader, waitFor, type Frame } from './helpers.js'

const work = perTest()

/** While armed, holds each turn's first step until `release` (one at a time); `disarm` lets the rest through. */
function heldGate() {
  let armed = true
  const held: (() => void)[] = []
  const plugin = definePlugin({
    name: 'held-gate',
    setup(ctx) {
      ctx.hooks.preStep.tapPromise('held-gate', async (decision, { step }) => {
        if (armed && step === 1) await new Promise<void>((resolve) => held.push(resolve))
        return decision
      })
    },
  })
  return {
    plugin,
    release: () => held.shift()!(),
    disarm: () => { armed = false },
    get waiting() { return held.length },
  }
}

function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

const spliceOf = (id: string) => (frame: Frame) => frame.event === 'session.event' && frame.data.type === 'agent/inbox/spliced' && frame.data.data.inserted.some((m: { id: string }) => m.id === id)
const turnEnded = (turn: number) => (frames: Frame[]) => frames.some((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.data.turn === turn)
const statusesFrom = (frames: Frame[], seq: number) => frames.filter((f) => f.event === 'session.status' && f.data.seq >= seq).map((f) => `${f.data.status}@${f.data.seq}`)
const turnOf = (url: string, session: string, id: string) => json(fetch(`${url}/v1/sessions/${session}/messages/${id}`))

describe('host: a fork\'s status frames when its seed queued input', () => {
  it('an inject into the fork is followed by idle and waits, a follow-up runs the fork\'s own input — forked while the parent ran, and after a turn', async () => {
    const gate = heldGate()
    const { host, store } = makeHost(work.dir, () => [{ text: 'answer', chunkSize: 3, delayMs: 2 }], {}, [gate.plugin])
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    work.closing.push(store, host, server)
    const url = server.url

    // The parent: turn 1 held while a follow-up and an inject queue behind it; turn 2 claims them, held too.
    await post(url, '/v1/sessions', { id: 'p' })
    await post(url, '/v1/sessions/p/messages', { clientMessageId: 'm1', content: 'first' })
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 held')
    await post(url, '/v1/sessions/p/messages', { clientMessageId: 'm2', content: 'second' })
    await post(url, '/v1/sessions/p/messages', { clientMessageId: 'i1', content: 'injected', delivery: 'inject' })
    gate.release()
    await waitFor(async () => (await turnOf(url, 'p', 'm1')).turnEnd === 'completed' && gate.waiting === 1, 15_000, 'turn 1 ended, turn 2 held')
    // Forked while turn 2 runs: the seed ends at turn 1's end, its queued m2 and i1 unclaimed there.
    const running = await post(url, '/v1/sessions/p/fork', { id: 'a' })
    expect(running.status).toBe(201)
    const seeds: Record<string, number> = { a: (await json<{ seedLength: number }>(running)).seedLength }
    gate.disarm()
    gate.release()
    await waitFor(async () => (await turnOf(url, 'p', 'm2')).turnEnd === 'completed', 15_000, 'turn 2')
    const after = await post(url, '/v1/sessions/p/fork', { id: 'b', afterTurn: 1 })
    expect(after.status).toBe(201)
    seeds.b = (await json<{ seedLength: number }>(after)).seedLength

    for (const fork of ['a', 'b']) {
      const seedLength = seeds[fork]!
      // The seed holds the parent's splices of m2 and i1 (queued, not yet claimed at the cut).
      const live = new SseReader(await fetch(`${url}/v1/sessions/${fork}/stream`))
      const seeded = await live.until((frames) => frames.some(spliceOf('i1')) && turnEnded(1)(frames))
      expect(seeded.find(spliceOf('m2'))!.data.seq).toBeLessThan(seedLength)
      expect(seeded[0]!.data).toMatchObject({ status: 'idle', inbox: { 'next-turn': [], 'next-step': [] } })

      await post(url, `/v1/sessions/${fork}/messages`, { clientMessageId: `${fork}-i`, content: 'fork inject', delivery: 'inject' })
      let frames = await live.until((all) => all.some(spliceOf(`${fork}-i`)) && all.some((f) => f.event === 'session.status' && f.data.seq >= seedLength))
      const inject = Number(frames.find(spliceOf(`${fork}-i`))!.data.seq)
      expect(statusesFrom(frames, seedLength)).toEqual([`idle@${inject}`])
      // As the fork's agent has it: idle, the inject alone queued (not the seed's m2, i1).
      const state = await json<{ status: string; inbox: Record<string, { id: string }[]> }>(fetch(`${url}/v1/sessions/${fork}`))
      const queued = [...state.inbox['next-step']!, ...state.inbox['next-turn']!].map((m) => m.id)
      expect({ status: state.status, queued }).toEqual({ status: 'idle', queued: [`${fork}-i`] })

      await post(url, `/v1/sessions/${fork}/messages`, { clientMessageId: `${fork}-f`, content: 'fork follow-up' })
      frames = await live.until((all) => all.some((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.seq > seedLength))
      await live.cancel()
      const followup = Number(frames.find(spliceOf(`${fork}-f`))!.data.seq)
      const turnStart = frames.find((f) => f.event === 'session.event' && f.data.type === 'turn/start' && f.data.seq > followup)!
      const turnEnd = frames.find((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.seq > followup)!
      expect(statusesFrom(frames, followup)).toEqual([`running@${turnStart.data.seq}`, `idle@${turnEnd.data.seq}`])
      // The fork's turn took its own inject and follow-up, nothing of the seed's queue.
      const ran = frames.filter((f) => f.event === 'session.event' && f.data.type === 'user/message' && f.data.seq > seedLength).map((f) => f.data.data.id)
      expect(ran).toEqual([`${fork}-i`, `${fork}-f`])
    }
  })
})
