/**
 * The main flow in the browser: queue two follow-ups while a turn streams, edit one, drag to
 * reorder, promote one to steering (drawn pending at the tail), Stop (the queue stays, paused),
 * Resume, a reject with its metadata, fork from an ended turn; axe-core on the main states.
 */
import { expect } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { screenshot, until } from './harness.js'
import { axeViolations, composer, dock, dockTexts, reasonOf, send, turn, waitForReason } from './page.js'

export async function queueFlow(context: BrowserContext, url: string): Promise<void> {
  const page = await context.newPage()
  try {
    await steps(page, url)
  } catch (error) {
    await screenshot(page, 'failure-queue-flow')
    throw error
  } finally {
    await page.close()
  }
}

async function steps(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await page.getByRole('button', { name: 'New session' }).click()
  await until(async () => /#\/s\/.+/.test(page.url()), 'the new session selected')
  const sessionId = decodeURIComponent(/#\/s\/(.+)$/.exec(page.url())![1]!)

  await send(page, 'Tell me about the bosun, at length.')
  await until(async () => ((await turn(page, 1).getByTestId('assistant-text').first().textContent().catch(() => '')) ?? '').length > 20, 'text streaming in')
  expect(await reasonOf(page, 1)).toBe('running')

  await send(page, 'first follow-up')
  await send(page, 'second follow-up')
  await until(async () => (await dockTexts(page)).length === 2, 'two queued')
  expect(await dockTexts(page)).toEqual(['first follow-up', 'second follow-up'])

  await dock(page).getByRole('button', { name: 'Edit: first follow-up' }).click()
  await dock(page).getByRole('textbox', { name: 'Edit queued message' }).fill('first follow-up, edited')
  await dock(page).getByRole('textbox', { name: 'Edit queued message' }).press('Enter')
  await until(async () => (await dockTexts(page))[0] === 'first follow-up, edited', 'the edit')

  const items = dock(page).getByRole('listitem')
  await items.nth(1).dragTo(items.nth(0))
  await until(async () => (await dockTexts(page)).join('|') === 'second follow-up|first follow-up, edited', 'the drag reorder')
  await screenshot(page, 'queue-dock')

  await send(page, 'also cover the anchor watch')
  await until(async () => (await dockTexts(page)).length === 3, 'a third queued')
  await dock(page).getByRole('button', { name: 'Promote to steer: also cover the anchor watch' }).click()
  const pending = page.getByRole('region', { name: 'Pending steering' })
  await until(async () => (await pending.getByText('also cover the anchor watch').count()) === 1, 'the promoted message pending at the tail')
  expect(await dockTexts(page)).toEqual(['second follow-up', 'first follow-up, edited'])
  await screenshot(page, 'pending-steer')
  expect(await axeViolations(page)).toEqual([])

  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await waitForReason(page, 1, 'aborted')
  await until(async () => (await page.getByText('Queue paused').count()) === 1, 'queue paused')
  expect(await dockTexts(page)).toEqual(['second follow-up', 'first follow-up, edited'])
  await screenshot(page, 'queue-paused')

  await page.getByRole('button', { name: 'Resume' }).click()
  // The parked steer rides with the next follow-up into turn 2; then turn 3 takes the edited one.
  await waitForReason(page, 2, 'completed')
  await waitForReason(page, 3, 'completed')
  const secondTurnInputs = await turn(page, 2).getByRole('region', { name: 'Step 1' }).innerText()
  expect(secondTurnInputs).toContain('second follow-up')
  expect(secondTurnInputs).toContain('also cover the anchor watch')
  expect(await turn(page, 3).innerText()).toContain('first follow-up, edited')
  expect(await dockTexts(page)).toEqual([])
  expect(await page.getByText('Queue paused').count()).toBe(0)

  await send(page, 'this is forbidden')
  await waitForReason(page, 4, 'blocked by content-filter')
  const reject = turn(page, 4).getByRole('region', { name: 'Rejected by content-filter' })
  expect(JSON.parse(await reject.getByLabel('Reject metadata').innerText())).toMatchObject({ rule: 'secret', excerpt: 'forbidden' })
  await screenshot(page, 'reject')
  expect(await axeViolations(page)).toEqual([])

  await turn(page, 2).getByRole('button', { name: 'Fork from turn 2' }).click()
  await until(async () => !page.url().endsWith(encodeURIComponent(sessionId)) && /#\/s\/.+/.test(page.url()), 'the fork opened')
  await until(async () => (await turn(page, 2).count()) === 1, 'the fork’s seeded turns')
  expect(await turn(page, 2).innerText()).toContain('(from the parent session)')
  expect(await turn(page, 3).count()).toBe(0)
  await send(page, 'a question only the fork hears')
  // The fork is a session of its own: its model starts from the first (slow) answer again.
  await waitForReason(page, 3, 'running')
  await screenshot(page, 'fork')
  await page.getByRole('button', { name: 'Stop and clear queue' }).click()
  await waitForReason(page, 3, 'aborted')
  expect(await composer(page).inputValue()).toBe('')
}
