// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
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

it('an edit of a queued message the host cannot be reached for opens its editor again with the text', async () => {
  harness = startHost(() => [{ text: 'a'.repeat(4000), chunkSize: 1, delayMs: 10 }])
  const host = harness.host
  let down = false
  const client = createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: (input, init) => (down && init?.method === 'PATCH' ? Promise.reject(new TypeError('Failed to fetch')) : host.fetch(new Request(input as string, init))),
  })
  await client.createSession('s')
  await client.send('s', { content: 'first' })
  await client.send('s', { content: 'queued one' })
  store = createAppStore({ client })
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  store.getState().select('s')
  const dock = await until(() => screen.queryByRole('region', { name: 'Queue' }), 'the queue dock')
  down = true
  fireEvent.click(within(dock).getByRole('button', { name: 'Edit: queued one' }))
  fireEvent.change(within(dock).getByRole('textbox', { name: 'Edit queued message' }), { target: { value: 'queued one, carefully reworded' } })
  fireEvent.keyDown(within(dock).getByRole('textbox', { name: 'Edit queued message' }), { key: 'Enter' })
  await until(() => store!.getState().notices.length === 1, 'the notice')
  expect(store.getState().notices[0]!.text).toMatch(/^Editing failed: the host could not be reached/)
  const editor = await until(() => within(screen.getByRole('region', { name: 'Queue' })).queryByRole('textbox', { name: 'Edit queued message' }) as HTMLInputElement | null, 'the editor open again')
  expect(editor.value).toBe('queued one, carefully reworded')
  await store.getState().stop(false)
})
