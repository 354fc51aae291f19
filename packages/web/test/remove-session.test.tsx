// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { LOG_FORMAT_VERSION, createAgent, memoryStore, type Store } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient, type HostClient, type SessionListItem } from '@bosun/host/client'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { applyHostFrame, childrenOf } from '../app/state/session-list.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'

let app: AppStore | undefined
const hosts: Host[] = []
afterEach(async () => {
  app?.getState().dispose()
  cleanup()
  for (const host of hosts.splice(0)) await host.close()
  app = undefined
})

/**
 * A memory store holding `root` (one answered turn), its subagent child `child` and grandchild
 * `grandchild` (headers naming their parents, as the subagents plugin writes them), and `other`.
 */
async function storedTree(): Promise<Store> {
  const store = memoryStore()
  const agent = await createAgent({ model: scripted(), store, sessionId: 'root' })
  agent.followup('plan the release')
  await agent.whenIdle()
  await agent.close()
  for (const [id, parentSessionId] of [['child', 'root'], ['grandchild', 'child'], ['other', undefined]] as const) {
    const delegation = parentSessionId === undefined ? {} : { delegation: { parentSessionId, callId: `call-${id}`, depth: 1, mode: 'continuable' as const } }
    await (await store.create({ id, version: LOG_FORMAT_VERSION, createdAt: Date.now(), ...delegation })).writer.close()
  }
  return store
}

function hostOver(store: Store): { host: Host; admin: HostClient; page: HostClient; requests: string[] } {
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), limits: { keepAliveMs: 200 } })
  hosts.push(host)
  const requests: string[] = []
  const page = createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${new URL(input as string).pathname}`)
      return host.fetch(new Request(input as string, init))
    },
  })
  const admin = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })
  return { host, admin, page, requests }
}

/** The whole page, following the host's list, with `session` open. */
function openPage(client: HostClient, session: string): AppStore {
  app = createAppStore({ client })
  app.getState().followSessions()
  render(
    <StoreProvider store={app}>
      <App />
    </StoreProvider>,
  )
  app.getState().select(session)
  return app
}

const row = (id: string): HTMLElement | null => within(screen.getByRole('list', { name: 'Session list' })).queryByRole('button', { name: new RegExp(`^${id}`) })
const listed = (): string[] => app!.getState().sessions.map((item) => item.id).sort()
const openedStreams = (requests: readonly string[], id: string): number => requests.filter((request) => request === `GET /v1/sessions/${id}/stream`).length

describe('Remove… on the open session', () => {
  it('names the session and the children that go with it; Remove deletes them, the list drops them, the view says it was removed', async () => {
    const store = await storedTree()
    const { page, requests } = hostOver(store)
    openPage(page, 'root')
    await until(() => row('grandchild') && app!.getState().connection.state === 'live', 'the tree listed and root open')

    fireEvent.click(screen.getByRole('button', { name: 'Remove…' }))
    const dialog = await until(() => screen.queryByRole('alertdialog'), 'the confirm')
    expect(within(dialog).getByRole('heading').textContent).toBe('Remove session root?')
    expect(dialog.textContent).toContain('Its 2 subagent children go too: child, grandchild.')
    expect(dialog.textContent).toContain('Forks of it stay.')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove 3 sessions' }))

    const said = await until(() => screen.queryByRole('alert'), 'the removed session said so')
    expect(said.textContent).toBe('Session "root" was removed: its conversation is gone from the host\'s store. Pick a session from the list or start a new session.')
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(requests.filter((request) => request.startsWith('DELETE'))).toEqual(['DELETE /v1/sessions/root'])
    expect(listed()).toEqual(['other'])
    expect(row('root')).toBeNull()
    expect(row('child')).toBeNull()
    expect((await store.list()).map((entry) => entry.id)).toEqual(['other'])
    // Its stream stopped for good: not reconnecting to a session that is gone.
    expect(app!.getState().connection.state).toBe('stopped')
    expect(screen.queryByRole('button', { name: 'Remove…' })).toBeNull()
  })

  it('Cancel removes nothing', async () => {
    const store = await storedTree()
    const { page, requests } = hostOver(store)
    openPage(page, 'other')
    fireEvent.click(await until(() => screen.queryByRole('button', { name: 'Remove…' }), 'the header'))
    const dialog = await until(() => screen.queryByRole('alertdialog'), 'the confirm')
    expect(dialog.textContent).not.toContain('subagent')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await until(() => screen.queryByRole('alertdialog') === null, 'the confirm closed')
    expect(requests.filter((request) => request.startsWith('DELETE'))).toEqual([])
    expect((await store.list()).map((entry) => entry.id).sort()).toEqual(['child', 'grandchild', 'other', 'root'])
  })

  it('a child whose parent is stored: the host refuses (child-session), a notice says why, nothing leaves the list', async () => {
    const store = await storedTree()
    const { page } = hostOver(store)
    const opened = openPage(page, 'other')
    await until(() => row('grandchild'), 'the tree listed')
    expect(await opened.getState().removeSession('child')).toBe(false)
    const notice = opened.getState().notices.map((each) => each.text).join('\n')
    expect(notice).toMatch(/^Removing the session failed: .*"child".*"root"/)
    expect(listed()).toEqual(['child', 'grandchild', 'other', 'root'])
    expect((await store.list()).map((entry) => entry.id).sort()).toEqual(['child', 'grandchild', 'other', 'root'])
  })
})

describe('a session removed elsewhere', () => {
  it('removing it again from this page counts as done: no failure notice', async () => {
    const store = await storedTree()
    const { admin, page } = hostOver(store)
    const opened = openPage(page, 'root')
    await until(() => row('other'), 'other listed')
    await admin.removeSession('other')
    expect(await opened.getState().removeSession('other')).toBe(true)
    expect(opened.getState().notices).toEqual([])
    expect(listed()).not.toContain('other')
  })

  it('the open view says it was removed and does not reconnect; the list drops it', async () => {
    const store = await storedTree()
    const { admin, page, requests } = hostOver(store)
    openPage(page, 'other')
    await until(() => row('other') && app!.getState().connection.state === 'live', 'other open')
    const streams = openedStreams(requests, 'other')

    expect(await admin.removeSession('other')).toEqual({ removed: ['other'] })
    const said = await until(() => screen.queryByRole('alert'), 'the removed session said so')
    expect(said.textContent).toContain('Session "other" was removed')
    await until(() => row('other') === null, 'other out of the list')
    expect(app!.getState().connection.state).toBe('stopped')
    // A frame the page receives later (another session's) comes after any reconnect it would have made.
    await admin.createSession('later')
    await until(() => row('later'), 'a later session, from the host stream')
    expect(openedStreams(requests, 'other')).toBe(streams)
  })
})

describe('the list state', () => {
  const item = (id: string, parentSessionId?: string, parent?: string): SessionListItem => ({ id, loaded: false, status: 'idle', lastSeq: 0, lastEventAt: null, queue: null, ...(parentSessionId ? { parentSessionId } : {}), ...(parent ? { parent } : {}) })

  it('a session.removed frame drops that session only', () => {
    const list = [item('a'), item('b', 'a'), item('c')]
    expect(applyHostFrame(list, { event: 'session.removed', data: { id: 'a' } }).map((each) => each.id)).toEqual(['b', 'c'])
  })

  it('children are the subagent descendants, breadth-first; a fork is not one', () => {
    const list = [item('a'), item('g', 'b'), item('b', 'a'), item('c', 'a'), item('fork', undefined, 'a'), item('x')]
    expect(childrenOf(list, 'a')).toEqual(['b', 'c', 'g'])
    expect(childrenOf(list, 'x')).toEqual([])
  })
})
