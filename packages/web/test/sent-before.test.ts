import { createServer, type Server } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createClient } from '@bosun/host/client'
import { admittedBefore, sentBeforeNotice } from '../app/state/sent-before.js'

/**
 * R8: the page asked the host where an earlier try went before sending the same words the other
 * way, and took only `queued` or `claimed` for "already sent". A cluster host that does not run the
 * session answers `{ state: 'pending' }` while the message waits in its mailbox for the owner
 * (docs/host.md, "Many hosts on one database"): the page took that for "never admitted" and sent
 * the words again — both ran once the owner took the first. And a lookup answered with the
 * owner's refusal of that entry (a 4xx) was thrown, so the words could never go. A real HTTP
 * server on 127.0.0.1 answers the lookup as the cluster route does (the route itself is tested in
 * packages/host), read by the real client.
 */
let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

async function hostAnswering(status: number, body: unknown): Promise<string> {
  server = createServer((_, response) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return `http://127.0.0.1:${address.port}`
}

const before = { clientMessageId: 'm1', delivery: 'followup' } as const

describe('the same words sent the other way: the earlier try, asked of a cluster host', () => {
  it('pending in that host\'s mailbox is already sent: nothing goes, and the notice says it is on its way', async () => {
    const client = createClient({ baseUrl: await hostAnswering(200, { messageId: 'm1', state: 'pending' }) })
    const status = await admittedBefore(client, 's', before)
    expect(status).toEqual({ messageId: 'm1', state: 'pending' })
    expect(sentBeforeNotice(before, status!, 'steer')).toMatch(/^Not sent: this message was already sent as a follow-up .*passing it to the host that runs this session/)
  })

  it('refused by the owner (the lookup answers the refusal) lets the words go', async () => {
    const client = createClient({ baseUrl: await hostAnswering(409, { error: { code: 'session-locked', message: 'taken over' } }) })
    expect(await admittedBefore(client, 's', before)).toBeNull()
  })

  it('a lookup the host refuses for itself (401) is not taken for an answer', async () => {
    const client = createClient({ baseUrl: await hostAnswering(401, { error: { code: 'unauthorized', message: 'token' } }) })
    await expect(admittedBefore(client, 's', before)).rejects.toMatchObject({ status: 401 })
  })
})
