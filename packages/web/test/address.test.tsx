// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { addressOf, followAddress, hashOf, sessionOfHash } from '../app/state/address.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { startHost, until, type Harness } from './host-harness.js'

let harness: Harness | undefined
let store: AppStore | undefined
let unfollow: (() => void) | undefined
afterEach(async () => {
  unfollow?.()
  store?.getState().dispose()
  await harness?.close()
  window.location.hash = ''
})

describe('the session in the page\'s address', () => {
  it('reads #/s/<id> as written by hashOf; an escape that does not decode names no session', () => {
    expect(sessionOfHash(hashOf('a b/ü'))).toBe('a b/ü')
    expect(sessionOfHash('#/s/%E0%A4%A')).toBeNull()
    expect(sessionOfHash('')).toBeNull()
    expect(hashOf(null)).toBe('')
  })

  it('an address naming no session keeps the page\'s path and query', () => {
    expect(addressOf(null, { pathname: '/ui/', search: '?tenant=a' })).toBe('/ui/?tenant=a')
    expect(addressOf('a-b', { pathname: '/ui/', search: '?tenant=a' })).toBe('#/s/a-b')
  })

  it('opens the session the address names at load and each one it names later (a link, the address bar, Back)', async () => {
    harness = startHost()
    for (const id of ['alpha', 'beta']) await harness.client.createSession(id)
    store = createAppStore({ client: harness.client })
    window.location.hash = '#/s/alpha'
    unfollow = followAddress(window, store)
    expect(store.getState().selected).toBe('alpha')
    window.location.hash = '#/s/beta'
    await until(() => store!.getState().selected === 'beta', 'beta selected after the address changed')
    window.location.hash = '#/s/%E0%A4%A'
    await until(() => store!.getState().selected === null, 'nothing selected for a mangled address')
  })

  it('a session the host does not have is unavailable, said in its place, with no notice beside it', async () => {
    harness = startHost()
    store = createAppStore({ client: harness.client })
    store.getState().select('no-such-session')
    await until(() => store!.getState().unavailable, 'the session said unavailable')
    expect(store.getState().unavailable).toMatch(/^Session "no-such-session" is not on this host/)
    expect(store.getState().notices).toEqual([])
  })

  it('an id no session can have (a path in it, "..") is unavailable too: said in its place, no notice, nothing to reload', async () => {
    harness = startHost()
    store = createAppStore({ client: harness.client })
    store.getState().select('../../etc')
    await until(() => store!.getState().unavailable, 'the id said unavailable')
    expect(store.getState().unavailable).toBe('"../../etc" is not a session id (a session id is 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit): pick a session from the list or start a new session.')
    expect(store.getState().notices).toEqual([])
  })
})
