/**
 * The page in happy-dom against a real in-process host (host-harness.ts), as the Message box's tests
 * use it: `pageTests()` sets a file up (a viewport-sized box for every element, and an afterEach
 * that closes the page, the host and the tab's storage), `openPage` draws the page — again, for a
 * reload — with a session open, and `clientOf` is a client whose POSTs fail while `down()` says so.
 */
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach } from 'vitest'
import { createClient, type HostClient } from '@bosun/host/client'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { createAppStore, type AppStore, type AppStoreOptions } from '../app/state/store.js'
import { until, type Harness } from './host-harness.js'

/** What a test opened, closed after it. */
export interface PageTest { harness?: Harness; store?: AppStore }

export function pageTests(): PageTest {
  // happy-dom has no layout: a virtualised timeline reads 0×0 as nothing on screen.
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })
  const opened: PageTest = {}
  afterEach(async () => {
    opened.store?.getState().dispose()
    cleanup()
    sessionStorage.clear() // the drafts and unsent sends of one test are not the next one's
    await opened.harness?.close()
    opened.harness = undefined
    opened.store = undefined
  })
  return opened
}

/** A client of `harness`'s host whose POSTs fail (a fetch that throws: the host unreachable) while `down()`; `seen` hears every request. */
export function clientOf(harness: Harness, down: () => boolean = () => false, seen?: (method: string, url: string) => void): HostClient {
  return createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: (input, init) => {
      seen?.(init?.method ?? 'GET', String(input))
      return down() && init?.method === 'POST' ? Promise.reject(new TypeError('Failed to fetch')) : harness.host.fetch(new Request(input as string, init))
    },
  })
}

/** The Message box on the page now, or null. */
export const messageBox = (): HTMLTextAreaElement | null => screen.queryByRole('textbox', { name: /Message/ }) as HTMLTextAreaElement | null

/** Draws the page (a new store: what a reload does) with `session` open; answers its Message box. */
export async function openPage(opened: PageTest, client: HostClient, session: string, options: Omit<AppStoreOptions, 'client'> = {}): Promise<HTMLTextAreaElement> {
  opened.store?.getState().dispose()
  cleanup()
  opened.store = createAppStore({ client, ...options })
  render(
    <StoreProvider store={opened.store}>
      <App />
    </StoreProvider>,
  )
  opened.store.getState().select(session)
  return until(messageBox, 'the message box')
}
