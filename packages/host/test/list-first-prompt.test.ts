// Session lists name a session by its first prompt (found walking the web UI: a list of UUIDs,
// where `bosun sessions list` shows each session's first prompt). A live session's comes from its
// log as it is now, a stored one's from the store's summary; both as the store would give it.
import { describe, expect, it } from 'vitest'
import { vi } from 'vitest'
import { createClient, type HostStreamFrame, type SessionListItem } from '../src/client.js'
import { listen } from '../src/index.js'
import { makeHost, perTest, stepGate } from './helpers.js'

const state = perTest()

async function serve(dir: string, plugins = [] as Parameters<typeof makeHost>[3]) {
  const { host, store } = makeHost(dir, () => [], {}, plugins)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  state.closing.push(store, host, server)
  return { host, client: createClient({ baseUrl: server.url }), server }
}

const row = async (client: ReturnType<typeof createClient>, id: string): Promise<SessionListItem> => (await client.listSessions()).find((s) => s.id === id)!

describe('a session list row\'s firstPrompt', () => {
  it('is the first message a user sent: queued, then delivered, live and after a restart; null while there is none', async () => {
    const gate = stepGate()
    const first = await serve(state.dir, [gate.plugin])
    const client = first.client
    await client.createSession('asked')
    expect((await row(client, 'asked')).firstPrompt).toBeNull()
    await client.send('asked', { content: 'How many moons has Mars?' })
    // Claimed and held before its step: queued in the log, not delivered yet.
    await vi.waitFor(() => expect(gate.waiting).toBe(1), { timeout: 20_000, interval: 20 })
    expect(await row(client, 'asked')).toMatchObject({ loaded: true, firstPrompt: 'How many moons has Mars?' })
    gate.open()
    await vi.waitFor(async () => expect((await client.getSession('asked')).status).toBe('idle'), { timeout: 20_000, interval: 20 })
    await client.send('asked', { content: 'And Jupiter?' }, { waitDurable: true })
    await vi.waitFor(async () => expect((await client.getSession('asked')).status).toBe('idle'), { timeout: 20_000, interval: 20 })
    expect(await row(client, 'asked')).toMatchObject({ loaded: true, firstPrompt: 'How many moons has Mars?' })
    await first.server.close()
    await first.host.close()

    // A new host over the same store: the row is the store's, the session not resumed.
    const second = await serve(state.dir)
    expect(await row(second.client, 'asked')).toMatchObject({ loaded: false, firstPrompt: 'How many moons has Mars?' })
    expect(await second.host.sessions.peek('asked')).toBeUndefined()
  })

  it('is in the host stream\'s frames: the hello and a new session\'s status', async () => {
    const { client } = await serve(state.dir)
    const controller = new AbortController()
    const frames: HostStreamFrame[] = []
    for await (const frame of client.hostStream({ signal: controller.signal })) {
      frames.push(frame)
      if (frame.event === 'hello') {
        await client.createSession('streamed')
        await client.send('streamed', { content: 'a long first prompt '.repeat(20) })
      }
      if (frame.event === 'session.status' && frame.data.id === 'streamed' && frame.data.status === 'idle' && frame.data.lastSeq > 3) controller.abort()
    }
    const last = frames.filter((f): f is Extract<HostStreamFrame, { event: 'session.status' }> => f.event === 'session.status').at(-1)!
    // A preview: 200 code points at most, a longer one cut with `…`.
    expect(last.data.firstPrompt).toBe(`${'a long first prompt '.repeat(20).slice(0, 199)}…`)
  })
})
