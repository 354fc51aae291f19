// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, memoryStore } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient } from '@bosun/host/client'
import { ReconnectBanner } from '../app/components/ReconnectBanner.js'
import { SessionList } from '../app/components/SessionList.js'
import { StoreProvider } from '../app/components/store-context.js'
import type { ConnectionState } from '../app/state/connection.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'

/**
 * The page's connection state (connection.ts, the store, the banner) when the host refuses or
 * loses the session stream: a refusal it will retry says why and how long the host asked to
 * wait; one it will not (404, 401) leaves no banner promising a retry. The same for the host
 * stream behind the session list, said in the list.
 */
const hosts: Host[] = []
let app: AppStore | undefined
afterEach(async () => {
  app?.getState().dispose()
  cleanup()
  for (const host of hosts.splice(0)) await host.close()
})

const hostWith = (limits: { streams?: number } = {}): Host => {
  const host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), limits: { keepAliveMs: 200, ...limits } })
  hosts.push(host)
  return host
}

/**
 * The page's store over a client whose fetch reaches `target()` (with `headers` added), as main.tsx
 * makes it; the session list and the banner rendered. `states` records the session stream's
 * states as the client's announcements and frames change them (not the page's own `connecting`
 * on select), `listStates` the list's.
 */
function page(target: () => Host, headers: Record<string, string> = {}): { client: ReturnType<typeof createClient>; states: ConnectionState[]; listStates: ConnectionState[] } {
  const states: ConnectionState[] = []
  const listStates: ConnectionState[] = []
  const client = createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: (input, init) => {
      const request = new Request(input as string, init)
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value)
      return target().fetch(request)
    },
  })
  app = createAppStore({ client })
  app.subscribe((now, before) => {
    if (now.connection !== before.connection && now.connection.state !== 'connecting') states.push(now.connection)
    if (now.listConnection !== before.listConnection && now.listConnection.state !== 'connecting') listStates.push(now.listConnection)
  })
  render(
    <StoreProvider store={app}>
      <SessionList />
      <ReconnectBanner />
    </StoreProvider>,
  )
  return { client, states, listStates }
}

const statuses = (): string[] => screen.queryAllByRole('status').map((element) => element.textContent ?? '')
const banner = (): string | null => statuses().find((text) => !text.startsWith('List not live')) ?? null
const listNotice = (): string | null => statuses().find((text) => text.startsWith('List not live')) ?? null
const listed = (id: string): boolean => screen.queryByRole('button', { name: new RegExp(`^${id}`) }) !== null

describe('a session stream the host refuses with 503 too-many-streams', () => {
  it('shows why and the wait asked for, retries after it by itself, then goes live from the last event shown', async () => {
    const host = hostWith({ streams: 1 })
    const { client, states } = page(() => host)
    await client.createSession('s')
    await client.send('s', { content: 'first' }, { waitDurable: true })
    await until(async () => (await client.getSession('s')).status === 'idle', 'the first turn ended')
    const { lastSeq } = await client.events('s')

    // Another client holds the host's only stream slot.
    const held = await host.fetch(new Request('http://127.0.0.1/v1/stream'))
    expect(held.status).toBe(200)
    app!.getState().select('s')
    await until(() => app!.getState().connection.state === 'reconnecting', 'the refusal noticed')
    expect(app!.getState().connection).toEqual({ state: 'reconnecting', retries: 1, refusal: { status: 503, code: 'too-many-streams', retryAfterMs: 5000 }, nextAttemptAt: expect.any(Number) })
    expect(banner()).toMatch(/^The host is serving as many streams as it allows — reconnecting \(attempt 1\) after the 5 s it asked for: next attempt in [1-6] s\. Nothing is lost: the stream resumes after the last event shown\.$/)

    await held.body!.cancel() // the other client goes away: its slot is free
    await until(() => app!.getState().connection.state === 'live', 'the stream live again', 20_000)
    expect(banner()).toBeNull()
    // One refusal, waited out (5 s), then live — not a retry every few hundred ms meanwhile.
    expect(states.map((state) => state.state)).toEqual(['reconnecting', 'live'])
    await until(() => app!.getState().view.lastSeq === lastSeq, 'the log folded')

    await client.send('s', { content: 'second' })
    await until(() => app!.getState().view.events.toArray().some((event) => event.type === 'turn/end' && event.seq > lastSeq), 'the new turn folded')
    const seqs = app!.getState().view.events.toArray().map((event) => event.seq)
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
  }, 30_000)
})

describe('a session stream refused for good', () => {
  it('404 after a drop (the host came back without the session): no banner promising a retry; the page says what to do in the session\'s place', async () => {
    const before = hostWith()
    const after = hostWith()
    let target = before
    const { client } = page(() => target)
    await client.createSession('gone')
    app!.getState().select('gone')
    await until(() => app!.getState().connection.state === 'live', 'the stream live')
    target = after
    await before.close() // the stream drops; the next attempt reaches a host without the session
    await until(() => app!.getState().connection.state === 'stopped', 'the refusal taken as final')
    expect(banner()).toBeNull()
    expect(app!.getState().unavailable).toBe('Session "gone" is not on this host (deleted, or the host uses another store): pick one from the list or start a new session.')
    expect(app!.getState().notices).toEqual([])
  })

  it('401: the login form, and no banner', async () => {
    const host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), auth: { token: 't'.repeat(40) } })
    hosts.push(host)
    page(() => host)
    app!.getState().select('s')
    await until(() => app!.getState().auth === 'required', 'the login form asked for')
    expect(app!.getState().connection.state).toBe('stopped')
    expect(banner()).toBeNull()
    expect(app!.getState().notices).toEqual([])
  })
})

describe('the session list\'s host stream, refused or stopped', () => {
  it('503 too-many-streams: the list says it is not live, why and the wait asked for; once a slot is free it is live again, the notice gone and the list current', async () => {
    const host = hostWith({ streams: 1 })
    const { client, listStates } = page(() => host)
    await client.createSession('early')

    // Another client holds the host's only stream slot.
    const held = await host.fetch(new Request('http://127.0.0.1/v1/stream'))
    expect(held.status).toBe(200)
    app!.getState().followSessions()
    await until(() => listNotice() !== null, 'the list notice')
    expect(app!.getState().listConnection).toEqual({ state: 'reconnecting', retries: 1, refusal: { status: 503, code: 'too-many-streams', retryAfterMs: 5000 }, nextAttemptAt: expect.any(Number) })
    expect(listNotice()).toBe('List not live — reconnecting (attempt 1) after the 5 s it asked for: the host is serving as many streams as it allows.')
    // The session stream is another stream: no banner over the conversation.
    expect(banner()).toBeNull()
    expect(app!.getState().connection.state).toBe('connecting')

    await client.createSession('late') // made while the list is not live
    expect(listed('late')).toBe(false)
    await held.body!.cancel() // the other client goes away: its slot is free
    await until(() => listed('early') && listed('late'), 'the list current again', 20_000)
    expect(listNotice()).toBeNull()
    expect(app!.getState().listConnection).toEqual({ state: 'live', retries: 0 })
    // One refusal, waited out, then live.
    expect(listStates.map((state) => state.state)).toEqual(['reconnecting', 'live'])

    // Live: a session made now is listed without a reload.
    await client.createSession('later')
    await until(() => listed('later'), 'the new session listed')
    expect(listNotice()).toBeNull()
  }, 30_000)

  it('a dropped list stream: "reconnecting" with the attempts counted while the host is unreachable, live again when it answers', async () => {
    const before = hostWith()
    const after = hostWith()
    const unreachable = { fetch: () => Promise.reject(new TypeError('fetch failed')) } as unknown as Host
    let target = before
    const { client } = page(() => target)
    await client.createSession('one')
    app!.getState().followSessions()
    await until(() => listed('one'), 'the list')
    expect(listNotice()).toBeNull()

    target = unreachable
    await before.close() // the list stream drops; the next attempts find nobody
    await until(() => app!.getState().listConnection.retries >= 2, 'a failed attempt after the drop')
    expect(listNotice()).toMatch(/^List not live — reconnecting \(attempt \d+\): connection lost\.$/)

    await after.fetch(new Request('http://127.0.0.1/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'two' }) }))
    target = after // the host is back (another one: its own list)
    await until(() => listed('two') && !listed('one'), 'the list from the host that answered', 20_000)
    expect(app!.getState().listConnection).toEqual({ state: 'live', retries: 0 })
    expect(listNotice()).toBeNull()
  })

  it('403 (the page is not on the host\'s own origin): the list says it stopped and what to do, no retry promised', async () => {
    const host = hostWith()
    page(() => host, { origin: 'http://elsewhere.example' })
    app!.getState().followSessions()
    await until(() => app!.getState().listConnection.state === 'stopped', 'the refusal taken as final')
    expect(listNotice()).toMatch(/^List not live — stopped: the host refused this page \(forbidden-origin\): .+ Open the web UI at the address the host prints, then reload\.$/)
    expect(listNotice()).not.toMatch(/reconnecting/)
    expect(app!.getState().notices).toEqual([])
  })
})
