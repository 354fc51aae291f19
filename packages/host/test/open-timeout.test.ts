// limits.openTimeoutMs: a session whose open does not finish — a plugin setup that never settles —
// answers `503 session-unavailable` once the bound passes, instead of holding the request (a
// takeover, a mail round) for good. The open's signal aborts then: createAgent gives the build up
// and releases the session's lock, so the next request (or another host) opens it afresh even if
// the setup never settles; an open that ignores the signal and finishes later is closed again; and
// the host's close does not wait for an open that never ends.
import { createAgent, definePlugin } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { describe, expect, it, vi } from 'vitest'
import { createHost, listen } from '../src/index.js'
import { perTest } from './helpers.js'

const t = perTest()

/** A plugin whose setups wait until `open()` (the first `held` of them; later ones run at once). */
function setupGate(held = Infinity): { plugin: ReturnType<typeof definePlugin>; open(): void; readonly started: number } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  let started = 0
  const plugin = definePlugin({
    name: 'slow-setup',
    async setup() {
      started++
      if (started <= held) await opened
    },
  })
  return { plugin, open, get started() { return started } }
}

async function storedSession(dir: string, id: string): Promise<void> {
  const store = jsonlStore({ dir })
  try {
    const agent = await createAgent({ model: scripted({ responses: [] }), store, sessionId: id })
    await agent.close()
  } finally {
    // Closing the agent leaves the store open, and with it the journal file its writes opened.
    await store.close()
  }
}

/** A host on 127.0.0.1 whose sessions' agents use the gate's plugin, opens bounded by `openTimeoutMs`. */
async function gatedHost(dir: string, gate: ReturnType<typeof setupGate>, openTimeoutMs: number) {
  const store = jsonlStore({ dir })
  const host = createHost({
    store,
    // The `agent` option: the host knows the plugins, and names them when an open times out.
    agent: { model: scripted({ responses: [] }), plugins: [gate.plugin] },
    limits: { openTimeoutMs },
  })
  return { store, server: await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false }) }
}

const send = (url: string, id: string, n: number) => fetch(`${url}/v1/sessions/${id}/messages`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ clientMessageId: `m${n}`, content: 'hi' }),
})

describe('limits.openTimeoutMs', () => {
  it('answers 503 when a plugin setup does not settle, naming the plugins, and opens afresh after', async () => {
    await storedSession(t.dir, 'slow')
    const gate = setupGate(1)
    const { store, server } = await gatedHost(t.dir, gate, 1000)
    // The store after the server (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, server)

    const refused = await send(server.url, 'slow', 1)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    const body = (await refused.json()) as { error: { code: string; message: string; details: { id: string } } }
    expect(body.error.code).toBe('session-unavailable')
    expect(body.error.message).toContain('limits.openTimeoutMs')
    expect(body.error.message).toContain('the setups of its plugins (slow-setup)')
    expect(body.error.details.id).toBe('slow')
    expect(gate.started).toBe(1)

    // The plugin behaves now (the aborted build's setup settles too, harmlessly): the next request
    // opens the session with a setup of its own.
    gate.open()
    let n = 2
    await vi.waitFor(async () => expect((await send(server.url, 'slow', n++)).status).toBe(202), { timeout: 30_000, interval: 50 })
    expect(gate.started).toBeGreaterThan(1)

    await server.close()
    // Nothing left open: the store hands the session out again.
    const reopened = await store.open('slow')
    expect(reopened?.header.id).toBe('slow')
    await reopened?.writer.close()
  })

  it('releases the session at the timeout when a setup never settles: the same host opens it afresh, and so does a second host', async () => {
    await storedSession(t.dir, 'hung')
    // The first setup never settles (a server that never answers) and is never released here.
    const seen: AbortSignal[] = []
    const never = new Promise<never>(() => {})
    const hangsOnce = definePlugin({
      name: 'hangs-once',
      async setup({ signal }) {
        seen.push(signal)
        if (seen.length === 1) await never
      },
    })
    const store = jsonlStore({ dir: t.dir })
    const server = await listen(createHost({ store, agent: { model: scripted({ responses: [] }), plugins: [hangsOnce] }, limits: { openTimeoutMs: 200 } }), { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, server)
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    t.closing.push({ close: async () => log.mockRestore() })

    expect((await send(server.url, 'hung', 1)).status).toBe(503)
    // The build was given up at the timeout: the hung setup was told, and the host's log names it.
    await vi.waitFor(() => expect(seen[0]?.aborted).toBe(true), { timeout: 30_000 })
    await vi.waitFor(() => expect(log.mock.calls.flat().join('\n')).toContain('aborted during the setup of plugin "hangs-once"'), { timeout: 30_000 })
    // The next request builds the agent afresh (the plugin behaves now), not held behind the hung open.
    let n = 2
    await vi.waitFor(async () => expect((await send(server.url, 'hung', n++)).status).toBe(202), { timeout: 30_000, interval: 50 })
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.at(-1)?.aborted).toBe(false)
    await server.close()

    // A second host on the same folder (another process) gets the session too: nothing holds its lock.
    const secondStore = jsonlStore({ dir: t.dir })
    const second = await listen(createHost({ store: secondStore, agent: { model: scripted({ responses: [] }) }, limits: { openTimeoutMs: 200 } }), { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(secondStore, second)
    await vi.waitFor(async () => expect((await send(second.url, 'hung', n++)).status).toBe(202), { timeout: 30_000, interval: 50 })
  })

  it('releases the session at the timeout for a host built from a config (createHost({ config }), as `bosun serve` builds it)', async () => {
    await storedSession(t.dir, 'hung-config')
    // The first setup that runs never settles. (Checking the config comes first and may itself
    // outlast 200 ms on a busy machine: then that open is given up before any setup, and the hang
    // waits for the next.)
    const seen: AbortSignal[] = []
    const never = new Promise<never>(() => {})
    let hang = true
    const hangsOnce = definePlugin({
      name: 'hangs-once',
      async setup({ signal }) {
        seen.push(signal)
        if (hang) {
          hang = false
          await never
        }
      },
    })
    const config = { model: { adapter: scripted({ responses: [] }) }, plugins: [hangsOnce] }
    const store = jsonlStore({ dir: t.dir })
    const server = await listen(createHost({ store, config, limits: { openTimeoutMs: 200 } }), { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, server)
    const log = vi.spyOn(console, 'error').mockImplementation(() => {})
    t.closing.push({ close: async () => log.mockRestore() })

    let n = 1
    // createAgentFromConfig passes the open's signal on: the hung setup is told at the timeout.
    await vi.waitFor(async () => {
      if (seen.length === 0) expect((await send(server.url, 'hung-config', n++)).status).toBe(503)
      expect(seen[0]?.aborted).toBe(true)
    }, { timeout: 30_000, interval: 50 })
    // And the session's lock was released with it: the next open builds the agent afresh.
    await vi.waitFor(async () => expect((await send(server.url, 'hung-config', n++)).status).toBe(202), { timeout: 30_000, interval: 50 })
    expect(seen.at(-1)?.aborted).toBe(false)
  })

  it('closes an open that finishes late when the agentFactory does not pass the signal on', async () => {
    await storedSession(t.dir, 'deaf')
    const gate = setupGate(1)
    const store = jsonlStore({ dir: t.dir })
    const host = createHost({
      store,
      // The signal is not given to createAgent: the build runs on past the timeout.
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId, plugins: [gate.plugin] }),
      limits: { openTimeoutMs: 200 },
    })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, server)
    expect((await send(server.url, 'deaf', 1)).status).toBe(503)
    // The late open is waited for (it holds the lock) and closed again; then the session opens afresh.
    gate.open()
    let n = 2
    await vi.waitFor(async () => expect((await send(server.url, 'deaf', n++)).status).toBe(202), { timeout: 30_000, interval: 50 })
    expect(gate.started).toBeGreaterThan(1)
  })

  it('lets the host close while an open never settles', async () => {
    await storedSession(t.dir, 'stuck')
    const gate = setupGate()
    const { store, server } = await gatedHost(t.dir, gate, 200)
    t.closing.push(store)
    expect((await send(server.url, 'stuck', 1)).status).toBe(503)
    await server.close()
    // Once the setup settles after all, the open it finished is closed again: its lock is released.
    gate.open()
    await vi.waitFor(async () => {
      const reopened = await store.open('stuck')
      await reopened?.writer.close()
      expect(reopened?.header.id).toBe('stuck')
    }, { timeout: 30_000, interval: 50 })
  })
})
