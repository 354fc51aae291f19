import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

/**
 * `?from` has one value, `tail`. Before, any other (`from=head`, `from=Tail`, `from=end`) was taken
 * as no cursor: a client that asked for the live events only — with a typo — was sent the whole
 * history from seq 0, while a wrong `?chunks` or `?after` was already `400`.
 */
describe('host: the session stream\'s query', () => {
  it.each(['head', 'Tail', 'end'])('?from=%s is 400 invalid-request at ?from, live or cold', async (from) => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hi', delivery: 'inject' })
    for (const round of ['live', 'cold']) {
      if (round === 'cold') await host.close()
      const { host: h, store: s } = round === 'live' ? { host, store } : makeHost(t.dir)
      if (round === 'cold') t.closing.push(s, h)
      const answer = await req(h, 'GET', `/v1/sessions/s/stream?from=${from}`)
      expect(answer.status, round).toBe(400)
      const { error } = await json(answer)
      expect(error).toMatchObject({ code: 'invalid-request', details: { path: '?from' } })
      expect(error.message).toBe(`"from" may only be "tail" (live events only; leave it out to replay from seq 0, or give ?after=<seq>), got ${JSON.stringify(from)}.`)
    }
  })

  it('?from=tail still streams from the tail: its hello, then no replayed event', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hi', delivery: 'inject' })
    const controller = new AbortController()
    const answer = await host.fetch(new Request('http://127.0.0.1/v1/sessions/s/stream?from=tail', { signal: controller.signal }))
    expect(answer.status).toBe(200)
    const reader = answer.body!.getReader()
    let text = ''
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value)
    controller.abort()
    await reader.cancel().catch(() => {})
    expect(text).toContain('event: hello')
    expect(text).not.toContain('event: session.event')
  })
})
