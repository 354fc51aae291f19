// A host's first chat for a new session id while another process creates the same id: the host's
// agent runs its plugin setups before the store's create (core createAgent), so the other process
// may create the id meanwhile and the host's create is refused (SESSION_EXISTS). The chat opens or
// creates, so it is answered as for a session that existed when the host looked: opened, its
// message admitted once — not 409 "choose another id". Two JSONL stores on one folder (two
// processes): a host on 127.0.0.1 whose plugin setup waits on a gate the test opens, and an agent
// that creates the session meanwhile.
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { listen } from '../src/index.js'
import { makeHost, perTest, waitFor } from './helpers.js'
import { setupGate } from './setup-gate.js'
import { admissionsOf } from './cluster-helpers.js'

describe('a chat for a new id another process creates first', () => {
  const t = perTest()

  it('opens the session the other process made and admits its message once', { timeout: 60_000 }, async () => {
    const gate = setupGate()
    const { host, store } = makeHost(t.dir, () => [], {}, [gate.plugin])
    t.closing.push({ close: () => store.close() }, host)
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(server)
    const body = { id: 'raced', messages: [{ id: 'from-host', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }
    const chat = fetch(`${server.url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    await waitFor(() => gate.entered === 1, 30_000, 'the host in the plugin setup')

    // Meanwhile another process creates the id, runs a turn and lets go of it.
    const otherStore = jsonlStore({ dir: t.dir })
    const other = await createAgent({ model: scripted({ responses: [] }), store: otherStore, sessionId: 'raced' })
    const first = other.followup('first')
    await other.whenIdle()
    await other.close()
    await otherStore.close()
    gate.open()

    const response = await chat
    const text = await response.text()
    expect(response.status, text).toBe(200)
    expect(text).toContain('hello')
    await (await host.sessions.peek('raced'))!.agent.session.flush()
    const { events } = (await store.read!('raced'))!
    expect(events.filter((e) => e.type === 'turn/end')).toHaveLength(2)
    expect(admissionsOf(events, first.id)).toBe(1)
    expect(admissionsOf(events, 'from-host')).toBe(1)
    // The setups ran again for the open: the host's session is the other process's, resumed.
    expect(gate.entered).toBe(2)
  })
})
