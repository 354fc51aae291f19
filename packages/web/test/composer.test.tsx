// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, expect, it } from 'vitest'
import { createClient } from '@bosun/host/client'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { startHost, until, type Harness } from './host-harness.js'

Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })

let harness: Harness | undefined
let store: AppStore | undefined
afterEach(async () => {
  store?.getState().dispose()
  cleanup()
  await harness?.close()
})

it('a message the host cannot be reached for comes back to the message box, and the notice says the host is not there (found walking the web UI, V3)', async () => {
  harness = startHost()
  const host = harness.host
  // The host goes away for the page's POSTs only: its streams stay as they were.
  let down = false
  const client = createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: (input, init) => (down && init?.method === 'POST' ? Promise.reject(new TypeError('Failed to fetch')) : host.fetch(new Request(input as string, init))),
  })
  await client.createSession('s')
  store = createAppStore({ client })
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  store.getState().select('s')
  const composer = await until(() => screen.queryByRole('textbox', { name: /Message/ }) as HTMLTextAreaElement | null, 'the message box')

  down = true
  fireEvent.change(composer, { target: { value: 'a long message I do not want to type again' } })
  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(() => store!.getState().notices.length === 1, 'the notice')
  expect(store.getState().notices[0]!.text).toBe('Queueing failed: the host could not be reached (TypeError: Failed to fetch). Try again once it is back.')
  await until(() => composer.value === 'a long message I do not want to type again', 'the text back in the box')

  // Once the host answers again, the same Enter sends it, and the box empties.
  down = false
  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(() => store!.getState().view.events.toArray().some((event) => event.type === 'user/message'), 'the message in the log')
  expect(composer.value).toBe('')
})
