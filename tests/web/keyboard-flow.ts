/** Every main action from the keyboard alone, with the focus visible. */
import { expect } from 'vitest'
import type { BrowserContext } from 'playwright-core'
import { screenshot, until } from './harness.js'
import { dockTexts, tabTo, waitForReason } from './page.js'

export async function keyboardFlow(context: BrowserContext, url: string): Promise<void> {
  const page = await context.newPage()
  await page.goto(url)
  await tabTo(page, 'New session')
  const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')
  expect(outline).not.toBe('none')
  await page.keyboard.press('Enter')
  await until(async () => /#\/s\/.+/.test(page.url()), 'a session from the keyboard')

  await tabTo(page, /^Message/)
  await page.keyboard.type('keyboard one')
  await page.keyboard.press('Enter')
  await until(async () => (await page.getByRole('article', { name: 'Turn 1', exact: true }).getByTestId('turn-reason').textContent().catch(() => null)) === 'running', 'turn 1 running')
  await page.keyboard.type('keyboard two')
  await page.keyboard.press('Enter')
  await page.keyboard.type('keyboard three')
  await page.keyboard.press('Enter')
  await until(async () => (await dockTexts(page)).length === 2, 'two queued from the keyboard')

  await tabTo(page, 'Queued message 2: keyboard three')
  await page.keyboard.press('Alt+ArrowUp')
  await until(async () => (await dockTexts(page)).join('|') === 'keyboard three|keyboard two', 'keyboard reorder')

  await tabTo(page, 'More actions: keyboard three')
  await page.keyboard.press('Enter')
  await page.getByRole('menuitem', { name: 'Move down' }).focus()
  await page.keyboard.press('Enter')
  await until(async () => (await dockTexts(page)).join('|') === 'keyboard two|keyboard three', 'reorder from the menu')

  await tabTo(page, 'Promote to steer: keyboard two')
  await page.keyboard.press('Enter')
  await until(async () => (await dockTexts(page)).join('|') === 'keyboard three', 'promoted from the keyboard')

  await tabTo(page, 'Stop')
  await page.keyboard.press('Enter')
  await waitForReason(page, 1, 'aborted')
  await tabTo(page, 'Resume')
  await screenshot(page, 'keyboard-focus')
  await page.keyboard.press('Enter')
  await waitForReason(page, 2, 'completed')

  await tabTo(page, 'Inspector')
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog')
  await until(async () => (await dialog.count()) === 1, 'the inspector open')
  expect(await dialog.getByText('turn/start').count()).toBeGreaterThan(0)
  await screenshot(page, 'inspector')
  await page.keyboard.press('Escape')
  await until(async () => (await dialog.count()) === 0, 'the inspector closed')
  await page.close()
}
