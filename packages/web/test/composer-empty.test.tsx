// @vitest-environment happy-dom
// An empty or blank Message box sends nothing, whichever way: Enter and Ctrl+Enter show a short hint
// under the box, and Send and Steer say why in their tooltip (aria-disabled, still focusable).
import { fireEvent, screen } from '@testing-library/react'
import { expect, it } from 'vitest'
import { EMPTY_SEND, EMPTY_STEER } from '../app/components/Composer.js'
import { startHost, until } from './host-harness.js'
import { clientOf, openPage, pageTests } from './page-harness.js'

const opened = pageTests()

it('Enter, Ctrl+Enter, Send and Steer on an empty or blank box send nothing and say so; typing takes the hint away', async () => {
  const harness = (opened.harness = startHost())
  let posts = 0
  const client = clientOf(harness, () => false, (method, url) => {
    if (method === 'POST' && url.endsWith('/messages')) posts += 1
  })
  await harness.client.createSession('s')
  const box = await openPage(opened, client, 's')
  const sendButton = screen.getByRole('button', { name: 'Send' })
  const steerButton = screen.getByRole('button', { name: 'Steer' })
  // The hint's status region is there from the start, empty, so a screen reader announces the words that appear in it.
  const region = document.getElementById('message-box-empty')
  expect(region?.getAttribute('role')).toBe('status')
  expect(region?.textContent).toBe('')
  const hint = (): string | null => document.getElementById('message-box-empty')?.textContent || null
  const regionStays = (): void => expect(document.getElementById('message-box-empty')).toBe(region)

  expect(steerButton.getAttribute('aria-disabled')).toBe('true')
  expect(steerButton.title).toBe(EMPTY_STEER)
  expect(sendButton.getAttribute('aria-disabled')).toBe('true')
  expect(sendButton.title).toBe(EMPTY_SEND)

  fireEvent.keyDown(box, { key: 'Enter', ctrlKey: true })
  expect(hint()).toBe(EMPTY_STEER)
  expect(box.getAttribute('aria-describedby')).toBe('message-box-empty')
  regionStays()
  fireEvent.change(box, { target: { value: '  \n ' } })
  expect(hint()).toBeNull()
  regionStays()
  expect(steerButton.getAttribute('aria-disabled')).toBe('true')
  fireEvent.keyDown(box, { key: 'Enter' })
  expect(hint()).toBe(EMPTY_SEND)
  fireEvent.click(steerButton)
  expect(hint()).toBe(EMPTY_STEER)
  expect(document.activeElement).toBe(box)
  fireEvent.click(sendButton)
  expect(hint()).toBe(EMPTY_SEND)
  regionStays()
  expect(posts).toBe(0)

  fireEvent.change(box, { target: { value: 'now something' } })
  expect(hint()).toBeNull()
  expect(steerButton.getAttribute('aria-disabled')).toBe('false')
  expect(steerButton.title).toBe('')
  fireEvent.keyDown(box, { key: 'Enter' })
  await until(() => posts === 1, 'the message sent')
  expect(hint()).toBeNull()
})
