import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req } from './helpers.js'

const t = perTest()

/**
 * Two forks to one new id at once: one makes it, the other is told the id is taken. Before, the
 * second met the store's lock on the child's file (the first was writing it) and was answered
 * `409 session-locked` about the *parent* — "Session "p" is open for writing in another process"
 * — though the parent was open nowhere else and only the child's id was taken.
 */
describe('host: forks racing for one id', () => {
  it('answers one 201 and the others 409 session-exists naming the child', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 'p' })
    await req(host, 'POST', '/v1/sessions/p/messages', { clientMessageId: 'm1', content: 'go', delivery: 'inject' })
    const answers = await Promise.all([1, 2, 3].map(() => req(host, 'POST', '/v1/sessions/p/fork', { id: 'twin' })))
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses).toEqual([201, 409, 409])
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect((await json(answer)).error).toMatchObject({ code: 'session-exists', details: { id: 'twin' } })
    }
    // The parent is usable: nothing holds it.
    expect((await req(host, 'POST', '/v1/sessions/p/messages', { clientMessageId: 'm2', content: 'again', delivery: 'inject' })).status).toBe(202)
  })

  it('a create and a fork of one new id at once: one 201, the other 409 session-exists', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    await req(host, 'POST', '/v1/sessions', { id: 'p' })
    // The fork first: it reads the parent, then creates; the create comes while the fork holds the id.
    const answers = await Promise.all([
      req(host, 'POST', '/v1/sessions/p/fork', { id: 'same' }),
      req(host, 'POST', '/v1/sessions', { id: 'same' }),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
    const refused = answers.find((answer) => answer.status === 409)!
    expect((await json(refused)).error).toMatchObject({ code: 'session-exists', details: { id: 'same' } })
  })
})
