// Removing a session from the web UI, in Chromium against the built `bosun serve` (a JSONL store):
// Remove… in the header asks, naming the session; Remove deletes it — a running turn is stopped
// first — and its file is gone; the page that removed it and another tab open on it both say it was
// removed in its place and stop following it, and both lists drop it. Needs `pnpm build`; without
// Chromium outside CI it is not registered (no-browser.test.ts says how to enable it).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium, screenshot, servedWithSessions, slowAnswer, until, type Serve, type Served } from './harness.js'
import { axeViolations, composer, send } from './page.js'

if (hasChromium) {
  describe('Remove… in Chromium', () => {
    let served: Served | undefined
    let server: Serve
    let browser: Served['browser']
    beforeAll(async () => {
      served = await servedWithSessions([slowAnswer(6000)], ['keep', 'busy'])
      ;({ server, browser } = served)
    }, 60_000)
    afterAll(async () => {
      await served?.close()
    }, 60_000)

    const sessionFile = (id: string) => join(served!.work.dir, '.bosun/sessions', `${id}.jsonl`)
    const listRow = (page: Page, id: string) => page.getByRole('list', { name: 'Session list' }).getByRole('button', { name: new RegExp(`^${id}`) })
    const removedSaid = (page: Page, id: string) => page.getByRole('alert').filter({ hasText: `Session "${id}" was removed` })
    /** How many times `page` asked for the session's stream. */
    const streamRequests = (page: Page, id: string): { count: number } => {
      const seen = { count: 0 }
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === `/v1/sessions/${id}/stream`) seen.count += 1
      })
      return seen
    }

    it('removes a running session after a confirm naming it; this tab and another open on it say it was removed, and stop following it', async () => {
      const [page, other] = [await browser.context.newPage(), await browser.context.newPage()]
      try {
        const otherStreams = streamRequests(other, 'busy')
        for (const each of [page, other]) {
          await each.goto(`${server.url}/#/s/busy`)
          await until(async () => (await composer(each).count()) === 1, 'the message box')
        }
        await send(page, 'write the long report')
        await until(async () => (await page.getByRole('button', { name: 'Stop', exact: true }).isEnabled()), 'the turn running')

        await page.getByRole('button', { name: 'Remove…' }).click()
        const dialog = page.getByRole('alertdialog')
        await until(async () => (await dialog.count()) === 1, 'the confirm')
        expect(await dialog.getByRole('heading').textContent()).toBe('Remove session busy?')
        expect(await dialog.textContent()).toContain('a turn running in it is stopped first')
        expect(await axeViolations(page)).toEqual([])
        await screenshot(page, 'remove-confirm')
        await dialog.getByRole('button', { name: 'Remove', exact: true }).click()

        await until(async () => (await removedSaid(page, 'busy').count()) === 1, 'this tab saying busy was removed')
        await until(async () => (await removedSaid(other, 'busy').count()) === 1, 'the other tab saying busy was removed')
        for (const each of [page, other]) {
          await until(async () => (await listRow(each, 'busy').count()) === 0, 'busy out of the list')
          expect(await listRow(each, 'keep').count()).toBe(1)
          expect(await composer(each).count()).toBe(0)
        }
        // The focus is where the session was, not lost on a button that left the page.
        expect(await page.evaluate('document.activeElement?.id')).toBe('session-main')
        expect(existsSync(sessionFile('busy'))).toBe(false)
        expect((await fetch(`${server.url}/v1/sessions/busy`)).status).toBe(404)

        // No reconnect: a page that keeps following would ask again (and be answered 404).
        const streamsAfter = otherStreams.count
        await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'later' }) })
        await until(async () => (await listRow(other, 'later').count()) === 1, 'a later session in the other tab\'s list')
        expect(otherStreams.count).toBe(streamsAfter)
      } catch (error) {
        await screenshot(page, 'failure-remove').catch(() => {})
        await screenshot(other, 'failure-remove-other').catch(() => {})
        throw error
      } finally {
        await page.close()
        await other.close()
      }
    }, 120_000)

    it('Cancel (Escape) removes nothing and gives the focus back to Remove…', async () => {
      const page = await browser.context.newPage()
      try {
        await page.goto(`${server.url}/#/s/keep`)
        await until(async () => (await composer(page).count()) === 1, 'the message box')
        await page.getByRole('button', { name: 'Remove…' }).click()
        await until(async () => (await page.getByRole('alertdialog').count()) === 1, 'the confirm')
        await page.keyboard.press('Escape')
        await until(async () => (await page.getByRole('alertdialog').count()) === 0, 'the confirm closed')
        expect(await page.evaluate('document.activeElement?.textContent')).toBe('Remove…')
        expect(existsSync(sessionFile('keep'))).toBe(true)
        expect((await fetch(`${server.url}/v1/sessions/keep`)).status).toBe(200)
      } catch (error) {
        await screenshot(page, 'failure-remove-cancel').catch(() => {})
        throw error
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
