// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, memoryStore } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient, type HostClient } from '@bosun/host/client'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { allowSetCookie, cookieFetch } from './cookie-jar.js'
import { until } from './host-harness.js'

const token = 'k'.repeat(48)
let restoreResponse: () => void
beforeAll(() => {
  restoreResponse = allowSetCookie()
})
afterAll(() => restoreResponse())

let host: Host | undefined
let store: AppStore | undefined
afterEach(async () => {
  store?.getState().dispose()
  cleanup()
  await host?.close()
  host = undefined
  store = undefined
})

/**
 * A real host with a token, in process, and the page's client on a fetch that keeps cookies the
 * way a browser does (the login cookie goes back on every later request). The page's client has
 * no token of its own.
 */
function hostWithToken(): { page: HostClient; admin: HostClient; cookies: () => string | undefined } {
  host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), auth: { token }, limits: { keepAliveMs: 200 } })
  const served = host
  const browser = cookieFetch((request) => served.fetch(request))
  const admin = createClient({ baseUrl: 'http://127.0.0.1', token, fetch: (input, init) => served.fetch(new Request(input as string, init)) })
  return { page: createClient({ baseUrl: 'http://127.0.0.1', fetch: browser.fetch }), admin, cookies: browser.cookie }
}

function openPage(client: HostClient): void {
  store = createAppStore({ client })
  store.getState().followSessions()
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
}

const tokenInput = (): HTMLInputElement => screen.getByLabelText('Host token') as HTMLInputElement

async function submit(value: string): Promise<void> {
  fireEvent.change(tokenInput(), { target: { value } })
  fireEvent.click(screen.getByRole('button', { name: 'Log in' }))
}

describe('the login form', () => {
  it('shows on a 401; a wrong token says so; the right one loads the session list from the cookie, the token kept nowhere', async () => {
    const { page, admin, cookies } = hostWithToken()
    await admin.createSession('behind-the-token')
    openPage(page)
    const form = await until(() => screen.queryByRole('form', { name: 'Log in to this Bosun host' }), 'the login form')
    expect(tokenInput().type).toBe('password')
    expect(screen.queryByRole('navigation', { name: 'Sessions' })).toBeNull()

    await submit('w'.repeat(48))
    const alert = await until(() => within(form).queryByRole('alert'), 'the wrong-token error')
    expect(alert.textContent).toMatch(/^Wrong token/)
    expect(tokenInput().value).toBe('') // cleared after the attempt
    expect(tokenInput().getAttribute('aria-invalid')).toBe('true')
    expect(tokenInput().getAttribute('aria-describedby')).toContain(alert.id)
    expect(cookies()).toBeUndefined()

    await submit(token)
    const list = await until(() => screen.queryByRole('list', { name: 'Session list' }), 'the session list after login')
    await until(() => within(list).queryByText('behind-the-token'), 'the session behind the token')
    expect(screen.queryByLabelText('Host token')).toBeNull()
    expect(cookies()).toMatch(/^[^=]+=.+/)
    // The token is in no storage and not on the page.
    expect(window.localStorage.length).toBe(0)
    expect(window.sessionStorage.length).toBe(0)
    expect(document.body.innerHTML).not.toContain(token)

    // Live from the host stream on the cookie: a session another client creates appears.
    await admin.createSession('made-after-login')
    await until(() => within(list).queryByText('made-after-login'), 'a session created after the login')

    // A reload (a new page on the same cookie) is in at once, and can log out.
    store!.getState().dispose()
    cleanup()
    openPage(page)
    await until(() => screen.queryByRole('list', { name: 'Session list' }) && screen.queryByText('behind-the-token'), 'the list on the kept cookie')
    fireEvent.click(await until(() => screen.queryByRole('button', { name: 'Log out' }), 'Log out on a cookie login'))
    await until(() => screen.queryByLabelText('Host token'), 'the login form after logging out')
    expect(cookies()).toBeUndefined()
    await expect(page.listSessions()).rejects.toMatchObject({ status: 401 })
  })

  it('says so when the host took the token but the browser did not keep the cookie (a Secure one over plain HTTP), rather than ask again', async () => {
    host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), auth: { token }, limits: { keepAliveMs: 200 } })
    const served = host
    const browser = cookieFetch((request) => served.fetch(request), { keeps: false })
    openPage(createClient({ baseUrl: 'http://127.0.0.1', fetch: browser.fetch }))
    const form = await until(() => screen.queryByRole('form', { name: 'Log in to this Bosun host' }), 'the login form')
    await submit(token)
    const alert = await until(() => within(form).queryByRole('alert'), 'what went wrong')
    expect(alert.textContent).toMatch(/^The host took the token, but this browser did not keep its login cookie/)
    expect(alert.textContent).toContain(window.location.protocol === 'http:' ? 'HTTPS proxy' : 'allow cookies')
    expect(store!.getState().auth).not.toBe('ok')
  })

  it('asks again after the host restarted (logins live in its memory)', async () => {
    const makeHost = (): Host => createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), auth: { token }, limits: { keepAliveMs: 200 } })
    const first = makeHost()
    const restarted = makeHost()
    let target = first
    host = restarted // closed after the test; the first is closed below
    const browser = cookieFetch((request) => target.fetch(request))
    openPage(createClient({ baseUrl: 'http://127.0.0.1', fetch: browser.fetch }))
    await until(() => screen.queryByLabelText('Host token'), 'the login form')
    await submit(token)
    await until(() => screen.queryByRole('list', { name: 'Session list' }), 'in')
    target = restarted
    await first.close() // ends the host stream; the reconnect reaches a host that never saw the cookie
    await until(() => screen.queryByLabelText('Host token'), 'the login form again')
    await submit(token)
    await until(() => screen.queryByRole('list', { name: 'Session list' }), 'in again')
  })

  it('offers no Log out on a host without a token', async () => {
    host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), limits: { keepAliveMs: 200 } })
    const served = host
    let hostInfoAnswered = 0
    const client = createClient({
      baseUrl: 'http://127.0.0.1',
      fetch: async (input, init) => {
        const response = await served.fetch(new Request(input as string, init))
        if (new URL(input as string).pathname === '/v1/host') hostInfoAnswered += 1
        return response
      },
    })
    await client.createSession('open-host')
    openPage(client)
    await until(() => screen.queryByText('open-host'), 'the list')
    // The page asks GET /v1/host once it is in, and decides from the answer (loggedIn leaves null).
    await until(() => hostInfoAnswered > 0, 'the page asked the host how it authenticates')
    await until(() => store!.getState().loggedIn !== null, 'the page to decide from the host\'s answer')
    expect(screen.queryByRole('button', { name: 'Log out' })).toBeNull()
    expect(store!.getState().loggedIn).toBe(false)
  })

  it('shows the host\'s rate-limit message after too many attempts', async () => {
    const { page } = hostWithToken()
    openPage(page)
    await until(() => screen.queryByLabelText('Host token'), 'the login form')
    // Ten attempts a minute per address (in process, every request shares one address).
    for (let attempt = 0; attempt < 10; attempt += 1) await page.login('w'.repeat(48)).catch(() => undefined)
    await submit(token)
    const alert = await until(() => screen.queryByRole('alert'), 'the rate-limit message')
    expect(alert.textContent).toMatch(/Too many login attempts from this address: retry in \d+ s\./)
    expect(screen.queryByRole('navigation', { name: 'Sessions' })).toBeNull()
  })
})
