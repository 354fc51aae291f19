// A session the host closes for idleness (limits.idleMs) is no longer loaded: the host stream
// says so with a session.status frame ({ loaded: false }). Before, retiring sent no frame, so a
// list fed by GET /v1/stream showed the session loaded until its next change. Conditions only:
// the frames that follow a later session's creation prove whether the retire's frame was sent.
import { findLiveAgent } from '@bosun/core'
import { expect, it } from 'vitest'
import { makeHost, perTest, req, SseReader, waitFor } from './helpers.js'

const t = perTest()

it('a session retired for idleness gets a session.status frame with loaded: false', async () => {
  const { host, store } = makeHost(t.dir, undefined, { limits: { idleMs: 20 } })
  t.closing.push(host)
  const feed = new SseReader(await req(host, 'GET', '/v1/stream'))
  try {
    await feed.until((frames) => frames.some((f) => f.event === 'hello'))
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const statusOf = (id: string) => feed.frames.filter((f) => f.event === 'session.status' && f.data.id === id)
    await feed.until(() => statusOf('s').some((f) => f.data.loaded === true))
    await waitFor(async () => (await host.sessions.peek('s')) === undefined && findLiveAgent(store, 's') === undefined, 15_000, 'session s to retire')

    // A later change: every frame queued before it is read by then.
    expect((await req(host, 'POST', '/v1/sessions', { id: 'later' })).status).toBe(201)
    await feed.until(() => statusOf('later').length > 0)
    expect(statusOf('s').at(-1)!.data).toMatchObject({ id: 's', loaded: false, status: 'idle' })
  } finally {
    await feed.cancel()
  }
})
