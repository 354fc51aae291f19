// @vitest-environment happy-dom
// What is typed in the Message box and not sent is the session's draft, kept in the tab's
// sessionStorage beside its unsent sends (message-draft.ts): a reload finds it in the box; sending
// forgets it; one over MAX_DRAFT_CHARS is kept for the page's life only.
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { HostClient } from '@bosun/host/client'
import { MAX_DRAFT_CHARS, MAX_DRAFT_SESSIONS, messageDraftFor } from '../app/state/message-draft.js'
import { unsentFor } from '../app/state/unsent.js'
import { startHost, until } from './host-harness.js'
import { mapStorage } from './map-storage.js'
import { clientOf, messageBox, openPage, pageTests } from './page-harness.js'

const opened = pageTests()

const userMessages = async (client: HostClient, id: string): Promise<number> => (await client.events(id)).events.filter((event) => event.type === 'user/message').length

/**
 * Session 's' open against a host whose POSTs fail while down: `text` sent then, back in the box.
 * Answers the client and the box; `up()` lets sends through again.
 */
async function sentWhileDown(text: string): Promise<{ client: HostClient; box: HTMLTextAreaElement; up(): void }> {
  const harness = (opened.harness = startHost())
  let down = false
  const client = clientOf(harness, () => down)
  await client.createSession('s')
  const box = await openPage(opened, client, 's')
  down = true
  fireEvent.change(box, { target: { value: text } })
  fireEvent.keyDown(box, { key: 'Enter' })
  await until(() => box.value === text, 'the text back in the box')
  return { client, box, up: () => (down = false) }
}

describe('the Message box\'s draft', () => {
  it('survives a reload and a switch to another session, and is forgotten once sent', async () => {
    const { client } = (opened.harness = startHost())
    await client.createSession('s')
    await client.createSession('t')
    let box = await openPage(opened, client, 's')
    fireEvent.change(box, { target: { value: 'half a thought,\nnot sent yet' } })
    expect(messageDraftFor('s').read().text).toBe('half a thought,\nnot sent yet')

    box = await openPage(opened, client, 's') // the reload
    expect(box.value).toBe('half a thought,\nnot sent yet')
    opened.store!.getState().select('t')
    await until(() => messageBox()?.value === '', 'the other session\'s empty box')
    const other = screen.getByRole('textbox', { name: /Message/ })
    opened.store!.getState().select('s')
    box = await until(() => { const shown = messageBox(); return shown !== other ? shown : null }, 'the box of s again')
    expect(box.value).toBe('half a thought,\nnot sent yet')

    fireEvent.keyDown(box, { key: 'Enter' })
    await until(async () => (await userMessages(client, 's')) === 1, 'the message in the log')
    expect(box.value).toBe('')
    expect(sessionStorage.getItem('bosun.draft.s')).toBeNull()
    box = await openPage(opened, client, 's')
    expect(box.value).toBe('')
  })

  it('an unsent message back in the box, reloaded and reworded, is sent as the new text and the old one is not offered again', async () => {
    const { client, up } = await sentWhileDown('first words')
    const box = await openPage(opened, client, 's')
    expect(box.value).toBe('first words')
    up()
    fireEvent.change(box, { target: { value: 'first words, reworded' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    // Taken: forgotten with the one it replaced, in the same answer that would offer the next one back.
    await until(() => unsentFor('s').all().every((entry) => entry.text !== 'first words, reworded'), 'the send answered')
    expect(unsentFor('s').all()).toEqual([])
    expect(box.value).toBe('')
  })

  it('an unsent message reworded before the reload still replaces it: once sent, the old text is not offered back', async () => {
    const { client, box: before, up } = await sentWhileDown('a')
    fireEvent.change(before, { target: { value: 'a b' } })
    const box = await openPage(opened, client, 's') // the reload
    expect(box.value).toBe('a b')
    up()
    fireEvent.keyDown(box, { key: 'Enter' })
    await until(async () => (await userMessages(client, 's')) === 1, 'the message in the log')
    await until(() => unsentFor('s').all().length === 0, 'the unsent sends forgotten')
    expect(box.value).toBe('')
    expect((await client.events('s')).events.filter((event) => event.type === 'user/message').map((event) => JSON.stringify(event.data))).toEqual([expect.stringContaining('a b')])
  })
})

describe('the draft\'s bound', () => {
  it('a draft over MAX_DRAFT_CHARS is kept for the page only: storage forgets the key, the text still reads back', () => {
    const storage = mapStorage()
    const draft = messageDraftFor('s', storage)
    draft.keep('short')
    expect(messageDraftFor('s', storage).read().text).toBe('short')
    expect(storage.map.get('bosun.draft.s')).toContain('short')
    const long = 'x'.repeat(MAX_DRAFT_CHARS + 1)
    draft.keep(long)
    expect(storage.map.has('bosun.draft.s')).toBe(false)
    expect(messageDraftFor('s', storage).read().text).toBe(long)
    draft.keep('x'.repeat(MAX_DRAFT_CHARS))
    expect(storage.map.has('bosun.draft.s')).toBe(true)
    expect(messageDraftFor('s', storage).read().text).toHaveLength(MAX_DRAFT_CHARS)
    draft.keep('')
    expect(storage.map.size).toBe(0)
    expect(draft.read().text).toBe('')
  })

  it('keeps the drafts of at most MAX_DRAFT_SESSIONS sessions: the one written longest ago goes', () => {
    const storage = mapStorage()
    for (let n = 0; n <= MAX_DRAFT_SESSIONS; n += 1) messageDraftFor(`s${n}`, storage).keep(`draft ${n}`)
    messageDraftFor('s1', storage).keep('draft 1, again') // written again: now the latest
    messageDraftFor('extra', storage).keep('one more')
    const kept = [...storage.map.keys()].filter((key) => key.startsWith('bosun.draft.'))
    expect(kept).toHaveLength(MAX_DRAFT_SESSIONS)
    expect(messageDraftFor('s0', storage).read().text).toBe('')
    expect(messageDraftFor('s2', storage).read().text).toBe('')
    expect(messageDraftFor('s1', storage).read().text).toBe('draft 1, again')
    expect(messageDraftFor('extra', storage).read().text).toBe('one more')
    messageDraftFor('extra', storage).keep('')
    expect(storage.map.has('bosun.draft.extra')).toBe(false)
  })
})
