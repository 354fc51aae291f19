// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, expect, it } from 'vitest'
import { createClient, type HostClient } from '@bosun/host/client'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { unsentFor } from '../app/state/unsent.js'
import { messageText } from '../app/state/wire.js'
import { startHost, until, type Harness } from './host-harness.js'

Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })

let harness: Harness | undefined
let store: AppStore | undefined
afterEach(async () => {
  store?.getState().dispose()
  cleanup()
  sessionStorage.clear() // what each test left unsent in session 's' is not the next one's
  await harness?.close()
})

/** The ids of the user messages the session's log admitted (an edit splices the same id again). */
async function admitted(client: HostClient): Promise<string[]> {
  const { events } = await client.events('s')
  const ids = new Set<string>()
  for (const event of events) {
    if (event.type !== 'agent/inbox/spliced') continue
    for (const message of (event.data as { inserted: { id: string; source?: { kind?: string } }[] }).inserted) if (message.source?.kind === 'user') ids.add(message.id)
  }
  return [...ids]
}

/**
 * The page against a real in-process host whose answer to the next request `loses` picks is lost:
 * the host takes the request whole — admits the message, applies the edit — and the page gets a
 * failed fetch, as when the connection is cut after the host took it.
 */
async function pageLosingAnswer(loses: (method: string, url: string) => boolean, setup: (client: HostClient) => Promise<void> = async () => {}, responses?: Parameters<typeof startHost>[0]): Promise<{ loseNextAnswer(): void; client: HostClient }> {
  harness = startHost(responses)
  const host = harness.host
  let lose = false
  const client = createClient({
    baseUrl: 'http://127.0.0.1',
    fetch: async (input, init) => {
      const method = init?.method ?? 'GET'
      const response = await host.fetch(new Request(input as string, init))
      if (lose && loses(method, String(input))) {
        lose = false
        await response.body?.cancel()
        throw new TypeError('Failed to fetch')
      }
      return response
    },
  })
  await client.createSession('s')
  await setup(harness.client)
  store = createAppStore({ client })
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  store.getState().select('s')
  return { loseNextAnswer: () => { lose = true }, client: harness.client }
}

const messageBox = (): Promise<HTMLTextAreaElement> => until(() => screen.queryByRole('textbox', { name: /Message/ }) as HTMLTextAreaElement | null, 'the message box')
const postsMessage = (method: string, url: string): boolean => method === 'POST' && url.endsWith('/messages')

const notSentTwice = (): boolean => store!.getState().notices.some((notice) => notice.text.startsWith('Not sent twice'))

async function sendFailing(composer: HTMLTextAreaElement, text: string): Promise<void> {
  fireEvent.change(composer, { target: { value: text } })
  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(() => store!.getState().notices.some((notice) => notice.text.startsWith('Queueing failed: the host could not be reached')), 'the failure notice')
  await until(() => composer.value === text, 'the text back in the box')
}

it('sending again a message whose answer was lost (the host had taken it) makes no second message; the same text sent after that is a new one', async () => {
  const { loseNextAnswer, client } = await pageLosingAnswer(postsMessage)
  const composer = await messageBox()
  loseNextAnswer()
  await sendFailing(composer, 'deploy the fix to staging')
  expect(await admitted(client)).toHaveLength(1)

  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(async () => notSentTwice() || (await admitted(client)).length > 1, 'the resend answered')
  expect(await admitted(client)).toHaveLength(1)
  expect(notSentTwice()).toBe(true)
  expect(composer.value).toBe('')

  // Taken: the same words typed again are a message of their own.
  fireEvent.change(composer, { target: { value: 'deploy the fix to staging' } })
  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(async () => (await admitted(client)).length === 2, 'a second message')
  expect(store!.getState().notices.filter((notice) => notice.text.startsWith('Not sent twice'))).toHaveLength(1)
})

it('a message whose answer was lost, edited and sent again, is a new message', async () => {
  const { loseNextAnswer, client } = await pageLosingAnswer(postsMessage)
  const composer = await messageBox()
  loseNextAnswer()
  await sendFailing(composer, 'deploy the fix to staging')

  fireEvent.change(composer, { target: { value: 'deploy the fix to production' } })
  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(async () => notSentTwice() || (await admitted(client)).length > 1, 'the resend answered')
  expect(await admitted(client)).toHaveLength(2)
  expect(notSentTwice()).toBe(false)
  expect(composer.value).toBe('')
})

it('an edit whose answer was lost (the host had applied it) saved again leaves one message with the new text, in its place', async () => {
  // PATCH sets the content (no If-Match from the page): applying the same text twice is the same message; a lost answer reopens the editor.
  const { loseNextAnswer, client } = await pageLosingAnswer(
    (method) => method === 'PATCH',
    async (admin) => {
      await admin.send('s', { content: 'first' })
      await admin.send('s', { content: 'queued one', clientMessageId: 'q-1' })
      await admin.send('s', { content: 'queued two', clientMessageId: 'q-2' })
    },
    () => [{ text: 'a'.repeat(4000), chunkSize: 1, delayMs: 10 }],
  )
  const dock = await until(() => screen.queryByRole('region', { name: 'Queue' }), 'the queue dock')
  loseNextAnswer()
  fireEvent.click(within(dock).getByRole('button', { name: 'Edit: queued one' }))
  fireEvent.change(within(dock).getByRole('textbox', { name: 'Edit queued message' }), { target: { value: 'queued one, reworded' } })
  fireEvent.keyDown(within(dock).getByRole('textbox', { name: 'Edit queued message' }), { key: 'Enter' })
  await until(() => store!.getState().notices.some((notice) => notice.text.startsWith('Editing failed: the host could not be reached')), 'the failure notice')
  const editor = await until(() => within(screen.getByRole('region', { name: 'Queue' })).queryByRole('textbox', { name: 'Edit queued message' }) as HTMLInputElement | null, 'the editor open again')
  expect(editor.value).toBe('queued one, reworded')

  // Saved again: whether the page sends the edit again (the stream not yet showing it) or sees it is already the text, one message, its id and place kept.
  fireEvent.keyDown(editor, { key: 'Enter' })
  await until(() => within(screen.getByRole('region', { name: 'Queue' })).queryByRole('textbox', { name: 'Edit queued message' }) === null, 'the editor closed')
  const { inbox } = await client.getSession('s')
  expect(inbox['next-turn'].map((message) => [message.id, messageText(message)])).toEqual([
    ['q-1', 'queued one, reworded'],
    ['q-2', 'queued two'],
  ])
  expect(store!.getState().notices.filter((notice) => notice.kind === 'error')).toHaveLength(1)
  await store!.getState().stop(false)
})

const errors = (): string[] => store!.getState().notices.filter((notice) => notice.kind === 'error').map((notice) => notice.text)

const notSent = (): string[] => store!.getState().notices.filter((notice) => notice.text.startsWith('Not sent:')).map((notice) => notice.text)

it('a follow-up whose answer was lost (the host ran it), steered after, is not sent again: the page says it was already sent', async () => {
  // Under a new id the host would take the steer as a message of its own — the same words twice. The page asks
  // the host where the follow-up's id went (GET …/messages/:messageId) first: admitted, it sends nothing.
  const { loseNextAnswer, client } = await pageLosingAnswer(postsMessage)
  const composer = await messageBox()
  loseNextAnswer()
  await sendFailing(composer, 'deploy the fix to staging')
  const [followUp] = await admitted(client)
  await until(async () => (await client.messageStatus('s', followUp!)).state === 'claimed', 'the follow-up taken by its turn')

  fireEvent.keyDown(composer, { key: 'Enter', ctrlKey: true })
  await until(async () => notSent().length > 0 || (await admitted(client)).length > 1, 'the steer answered')
  expect(notSent()).toEqual([expect.stringMatching(/^Not sent: this message was already sent as a follow-up .*a turn has taken it/)])
  expect(errors()).toEqual([expect.stringMatching(/^Queueing failed: the host could not be reached/)])
  expect(await admitted(client)).toHaveLength(1)
  await until(() => unsentFor('s').all().length === 0, 'nothing left unsent')
  expect(composer.value).toBe('')
})

it('a follow-up whose answer was lost, still queued, steered after, is not sent twice: the page points at Promote to steer in the queue', async () => {
  const { loseNextAnswer, client } = await pageLosingAnswer(
    postsMessage,
    async (admin) => {
      await admin.send('s', { content: 'first' })
    },
    () => [{ text: 'a'.repeat(4000), chunkSize: 1, delayMs: 10 }],
  )
  const composer = await messageBox()
  await until(() => store!.getState().view.status === 'running', 'the first turn running')
  loseNextAnswer()
  await sendFailing(composer, 'deploy the fix to staging')
  const [, followUp] = await admitted(client)

  fireEvent.keyDown(composer, { key: 'Enter', ctrlKey: true })
  await until(async () => notSent().length > 0 || (await admitted(client)).length > 2, 'the steer answered')
  expect(notSent()).toEqual([expect.stringMatching(/^Not sent: this message was already sent as a follow-up .*in the queue.*Promote to steer/)])
  expect(await admitted(client)).toHaveLength(2)
  expect((await client.messageStatus('s', followUp!)).state).toBe('queued')
  await until(() => unsentFor('s').all().length === 0, 'nothing left unsent')
  expect(composer.value).toBe('')
  await store!.getState().stop(false)
})

it('a follow-up the host never admitted, steered after, goes under a new id', async () => {
  // The host has no message under the unsent follow-up's id (404 message-not-found): the steer is the only one.
  sessionStorage.setItem('bosun.unsent.s', JSON.stringify([{ text: 'deploy the fix to staging', clientMessageId: 'never-1', delivery: 'followup' }]))
  const { client } = await pageLosingAnswer(postsMessage)
  const composer = await messageBox()
  await until(() => composer.value === 'deploy the fix to staging', 'the unsent text offered')
  fireEvent.keyDown(composer, { key: 'Enter', ctrlKey: true })
  await until(async () => (await admitted(client)).length > 0, 'the steer admitted')
  const ids = await admitted(client)
  expect(ids).toHaveLength(1)
  expect(ids[0]).not.toBe('never-1')
  expect(errors()).toEqual([])
  expect(notSent()).toEqual([])
  await until(() => unsentFor('s').all().length === 0, 'nothing left unsent')
})

/**
 * The page opened with an unsent entry kept for 'deploy the fix to staging' under `unsent.clientMessageId`, an id
 * the host admitted as `first` — what another version of the page, or a tab duplicated with its storage, leaves —
 * the entry's text offered in the box and sent again with `key`; answers once a notice says how it went.
 */
async function sendUnderTakenId(unsent: { clientMessageId: string; delivery: 'followup' | 'steer' }, first: { content: string }, key: { key: 'Enter'; ctrlKey?: boolean }): Promise<{ client: HostClient; composer: HTMLTextAreaElement }> {
  sessionStorage.setItem('bosun.unsent.s', JSON.stringify([{ text: 'deploy the fix to staging', ...unsent }]))
  const { client } = await pageLosingAnswer(postsMessage, async (admin) => {
    await admin.send('s', { ...first, clientMessageId: unsent.clientMessageId })
  })
  const composer = await messageBox()
  await until(() => composer.value === 'deploy the fix to staging', 'the unsent text offered')
  fireEvent.keyDown(composer, key)
  await until(() => store!.getState().notices.length > 0, 'the send answered')
  return { client, composer }
}

it('an unsent message whose id the host took with other words (422 client-message-id-reused) is forgotten, said plainly; its words come back as a new message', async () => {
  const { client, composer } = await sendUnderTakenId({ clientMessageId: 'u-1', delivery: 'followup' }, { content: 'deploy the fix to production' }, { key: 'Enter' })
  expect(store!.getState().notices.map((notice) => [notice.kind, notice.text])).toEqual([['info', expect.stringMatching(/^Not sent: the host had already taken a message under this one's id.*Your words are back in the Message box/)]])
  await until(() => composer.value === 'deploy the fix to staging', 'the words back in the box')
  expect(unsentFor('s').all()).toEqual([])
  expect(await admitted(client)).toEqual(['u-1'])

  // Sent again: a message of its own, under a new id.
  fireEvent.keyDown(composer, { key: 'Enter' })
  await until(async () => (await admitted(client)).length === 2, 'a second message')
  expect(errors()).toEqual([])
})

it('an unsent steer whose id the host took as a follow-up (422 client-message-id-reused) is forgotten and said plainly, its text not offered again', async () => {
  const { client, composer } = await sendUnderTakenId({ clientMessageId: 'u-2', delivery: 'steer' }, { content: 'deploy the fix to staging' }, { key: 'Enter', ctrlKey: true })
  expect(store!.getState().notices.map((notice) => [notice.kind, notice.text])).toEqual([['info', expect.stringMatching(/^Not sent: the host had already taken a message under this one's id.*in the conversation or the queue.*only if you want it twice/)]])
  expect(unsentFor('s').all()).toEqual([])
  expect(composer.value).toBe('')
  expect(await admitted(client)).toEqual(['u-2'])
})
