import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

/**
 * `PUT …/inbox/order` orders the queued follow-ups. An id that is queued, but as steering
 * (`next-step`), was answered `404 queue-item-not-found` — "is not queued (claimed by a turn,
 * removed, or never admitted)" — about a message `GET /v1/sessions/:id` still showed queued. It is
 * `400 invalid-request` saying which queue the message is in and what the order may list.
 */
describe('host: ordering with a steering message', () => {
  it('names the message queued as steering, with the follow-ups the order may list', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'steer-1', content: 'a', delivery: 'inject' })
    const answer = await req(host, 'PUT', '/v1/sessions/s/inbox/order', { order: ['steer-1'] })
    expect(answer.status).toBe(400)
    const { error } = await json(answer)
    expect(error).toMatchObject({ code: 'invalid-request', details: { path: '/order/0', queued: [] } })
    expect(error.message).toBe('Message "steer-1" is queued as steering (next-step), which is not ordered: "order" lists the queued follow-ups (next-turn) only, each once — none are queued.')
    // A message queued nowhere is still 404.
    const gone = await req(host, 'PUT', '/v1/sessions/s/inbox/order', { order: ['nope'] })
    expect(gone.status).toBe(404)
  })
})
