// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type Store } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient, type HostClient } from '@bosun/host/client'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { SessionList } from '../app/components/SessionList.js'
import { StoreProvider } from '../app/components/store-context.js'
import { relativeTime } from '../app/state/select.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'

let app: AppStore | undefined
const hosts: Host[] = []
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  app?.getState().dispose()
  cleanup()
  for (const host of hosts.splice(0)) await host.close()
  for (const done of cleanups.splice(0)) await done()
  app = undefined
})

const hostOver = (store: Store, responses: () => ScriptedResponse[] = () => []): Host => {
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: responses() }), store, sessionId }), limits: { keepAliveMs: 200 } })
  hosts.push(host)
  return host
}

/** A client on `target()`'s fetch that records the paths the page asked for. */
function pageClient(target: () => Host): { client: HostClient; paths: string[] } {
  const paths: string[] = []
  const client = createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: (input, init) => {
      paths.push(new URL(input as string).pathname)
      return target().fetch(new Request(input as string, init))
    },
  })
  return { client, paths }
}

function openList(client: HostClient): HTMLElement {
  app = createAppStore({ client })
  app.getState().followSessions()
  render(
    <StoreProvider store={app}>
      <SessionList />
    </StoreProvider>,
  )
  return screen.getByRole('list', { name: 'Session list' })
}

const row = (id: string): HTMLElement | null => screen.queryByRole('button', { name: new RegExp(`^${id}`) })

describe('the session list, live from the host stream', () => {
  it('lists a cold session without resuming it, then follows status, queued count and last activity with no polling', async () => {
    // "harbour" was written by an earlier process: this host has never opened it (a JSONL store
    // reads a session's log without opening it, so the list knows its last activity).
    const dir = await mkdtemp(join(tmpdir(), 'bosun-web-list-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const store = jsonlStore({ dir })
    // Closed after the hosts, before the folder goes (its journal file stays open until then).
    cleanups.unshift(() => store.close())
    const writer = await createAgent({ model: scripted(), store, sessionId: 'harbour' })
    writer.followup('an old question')
    await writer.whenIdle()
    const storedLast = writer.session.events.at(-1)!.time
    await writer.close()
    const host = hostOver(store, () => [{ text: 'w'.repeat(300), chunkSize: 2, delayMs: 10 }])
    const { client, paths } = pageClient(() => host)
    const admin = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })

    openList(client)
    const cold = await until(() => row('harbour'), 'the cold session listed')
    expect(cold.textContent).toContain('cold')
    const time = cold.querySelector('time')!
    expect(time.getAttribute('datetime')).toBe(new Date(storedLast).toISOString())
    expect(time.getAttribute('title')).toBe(`last activity: ${new Date(storedLast).toLocaleString()}`)
    expect(time.textContent).toBe(relativeTime(storedLast, Date.now()))
    expect(await host.sessions.peek('harbour')).toBeUndefined()

    // Another client works a new session: the list follows without asking GET /v1/sessions.
    await admin.createSession('deck')
    await until(() => row('deck'), 'the new session, from session.added')
    await admin.send('deck', { content: 'first' })
    await until(() => row('deck')?.textContent?.includes('running'), 'deck running')
    await admin.send('deck', { content: 'second' })
    await admin.send('deck', { content: 'third' })
    await until(() => row('deck')?.textContent?.includes('2 queued'), 'two queued')
    await admin.cancel('deck')
    await until(() => row('deck')?.textContent?.includes('idle') && !row('deck')!.textContent!.includes('queued'), 'deck idle, queue cleared')
    const lastEvent = (await admin.events('deck', { limit: 1000 })).events.at(-1)!
    await until(() => row('deck')!.querySelector('time')?.getAttribute('datetime') === new Date(lastEvent.time).toISOString(), 'the last activity of deck')
    expect(paths.filter((path) => path === '/v1/sessions')).toEqual([])
    expect(paths.filter((path) => path === '/v1/stream')).toHaveLength(1)
    expect(await host.sessions.peek('harbour')).toBeUndefined()
    expect(row('harbour')!.textContent).toContain('cold')
  }, 60_000)

  it('after a reconnect, draws the list the host has now (a new hello replaces it)', async () => {
    const before = hostOver(memoryStore())
    const after = hostOver(memoryStore())
    const beforeClient = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => before.fetch(new Request(input as string, init)) })
    const afterClient = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => after.fetch(new Request(input as string, init)) })
    await beforeClient.createSession('gone-after-restart')
    await afterClient.createSession('there-after-restart')
    let target = before
    const { client } = pageClient(() => target)
    openList(client)
    await until(() => row('gone-after-restart'), 'the first host\'s session')
    target = after
    await before.close() // ends the host stream: the page reconnects, now to the other host
    await until(() => row('there-after-restart'), 'the list after the reconnect')
    expect(row('gone-after-restart')).toBeNull()
  })

  it('draws a fork under the session it was forked from, and search still finds it', async () => {
    const host = hostOver(memoryStore())
    const admin = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })
    await admin.createSession('origin')
    await admin.send('origin', { content: 'one' })
    await until(async () => (await admin.getSession('origin')).lastSeq > 3 && (await admin.getSession('origin')).status === 'idle', 'origin answered')
    await admin.fork('origin', { id: 'branch' })
    openList(pageClient(() => host).client)
    const children = await until(() => screen.queryByRole('list', { name: 'Children of origin' }), 'the fork under its parent')
    const branch = within(children).getByRole('button', { name: /^branch/ })
    expect(within(branch).getByText('fork').getAttribute('title')).toBe('forked from origin')
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search sessions' }), { target: { value: 'bran' } })
    expect(row('origin')).toBeNull()
    expect(row('branch')).not.toBeNull()
  })
})

describe('a session named by its first prompt', () => {
  it('shows the first prompt under the id, and a search finds a session by words of it', async () => {
    const host = hostOver(memoryStore())
    const admin = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })
    await admin.createSession('moons')
    await admin.createSession('quiet')
    openList(pageClient(() => host).client)
    await until(() => row('moons') && row('quiet'), 'both listed')
    await admin.send('moons', { content: 'How many moons has Mars?' })
    const named = await until(() => (row('moons') && within(row('moons')!).queryByText('How many moons has Mars?')) ?? null, 'the first prompt drawn once sent')
    expect(named.getAttribute('title')).toBe('How many moons has Mars?')
    // The id stays first: a row's name starts with it; a session with no prompt shows its id alone.
    expect(row('moons')!.textContent).toMatch(/^moonsHow many moons has Mars\?/)
    expect(row('quiet')!.textContent).toMatch(/^quiet(idle|running)/)
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search sessions' }), { target: { value: 'MARS' } })
    expect(row('moons')).not.toBeNull()
    expect(row('quiet')).toBeNull()
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search sessions' }), { target: { value: 'venus' } })
    expect(screen.getByRole('status').textContent).toBe('No session id or first prompt contains "venus".')
  })
})

describe('the open session in the list', () => {
  it('shows the time of the last event its own stream delivered', async () => {
    const host = hostOver(memoryStore(), () => [{ text: 'v'.repeat(60), chunkSize: 1, delayMs: 5 }])
    const admin = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })
    await admin.createSession('open-one')
    openList(pageClient(() => host).client)
    await until(() => row('open-one'), 'listed')
    app!.getState().select('open-one')
    await admin.send('open-one', { content: 'go' })
    // Mid-turn the host stream's summary is as of the turn's start; the list shows the later
    // event the open session's own stream delivered.
    await until(() => {
      const state = app!.getState()
      const viewLast = state.view.events.at(-1)?.time
      const summary = state.sessions.find((item) => item.id === 'open-one')?.lastEventAt ?? null
      const shown = row('open-one')?.querySelector('time')?.getAttribute('datetime')
      return state.view.status === 'running' && viewLast !== undefined && summary !== null && viewLast > summary && shown === new Date(viewLast).toISOString()
    }, 'the list at the open session\'s last event, ahead of the host stream')
  })
})

describe('relativeTime', () => {
  it('says how long ago, in words', () => {
    const now = Date.UTC(2026, 0, 10, 12, 0, 0)
    expect(relativeTime(now - 5_000, now)).toBe('just now')
    expect(relativeTime(now + 5_000, now)).toBe('just now') // a clock a little ahead
    expect(relativeTime(now - 2 * 60_000, now)).toBe('2 min ago')
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe('3 h ago')
    expect(relativeTime(now - 26 * 3_600_000, now)).toBe('yesterday')
    expect(relativeTime(now - 5 * 86_400_000, now)).toBe('5 days ago')
  })
})
