// A deploy's restart (review Y10): `bosun serve` got SIGTERM while a turn ran and a follow-up waited
// behind it; closing aborted the turn (`aborted`, reason `closed`), which read like a user's Stop
// (now `shutdown`: host.close() aborts as a shutdown, recovery owes the queue its turns),
// so after the restart the follow-up stayed queued — even once the session was opened again — until
// someone sent another message or woke it. A SIGKILL did better (the crash repair woke it).
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost } from '../src/index.js'
import { json, perTest, req, waitFor } from './helpers.js'
import { shutDownOwingQueue } from './shutdown-owed.js'

const t = perTest()

describe('a host closed while a turn runs and a follow-up waits', () => {
  it('the next host runs the follow-up when the session is opened again: a shutdown is not a Stop', async () => {
    await shutDownOwingQueue(t.dir, 'deploy', t.closing)

    const secondStore = jsonlStore({ dir: t.dir })
    t.closing.push(secondStore)
    const second = createHost({
      store: secondStore,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'b answered' }] }), store, sessionId }),
    })
    t.closing.push(second)
    const { agent } = await second.sessions.use('deploy')
    expect(agent.recovery.waiting).toEqual(['b'])
    await waitFor(async () => (await json(req(second, 'GET', '/v1/sessions/deploy/messages/b'))).stepped === true, 15_000, 'b stepped')
    await waitFor(() => agent.status === 'idle', 15_000, 'the session idle')
    const ends = agent.session.events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason)
    expect(ends).toEqual([{ kind: 'aborted', reason: 'shutdown' }, { kind: 'completed' }])
  })
})
