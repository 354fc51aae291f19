import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req, stepGate, waitFor } from './helpers.js'

const t = perTest()

describe('GET /v1/sessions/:id/messages/:messageId', () => {
  it('answers "claimed, not stepped" for a message a running turn claimed before its first step', async () => {
    const gate = stepGate()
    const { host, store } = makeHost(t.dir, () => [{ text: 'done' }], {}, [gate.plugin])
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { content: 'hi', clientMessageId: 'm1' })).status).toBe(202)
    // The turn has claimed m1 and waits in pre-step: it is neither queued nor delivered yet.
    await waitFor(() => gate.waiting === 1)
    const during = await req(host, 'GET', '/v1/sessions/s/messages/m1')
    expect(during.status).toBe(200)
    const status = await json(during)
    expect(status).toMatchObject({ messageId: 'm1', state: 'claimed', turn: 1, stepped: false, lane: 'next-turn' })
    expect(status.turnEnd).toBeUndefined()
    gate.open()
    const after = await waitFor(async () => {
      const s = await json(req(host, 'GET', '/v1/sessions/s/messages/m1'))
      return s.turnEnd === 'completed' ? s : undefined
    })
    expect(after).toMatchObject({ state: 'claimed', turn: 1, stepped: true })
  })
})
