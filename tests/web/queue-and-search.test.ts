// Found in review, in Chromium against the built `bosun serve`: a search that matched no session
// drew nothing at all (no word that it had searched); the session list said "4 queued" beside a
// queue dock of 3 while a steer was pending (it summed both lanes); a steer left pending by Stop
// still read "pending", as if it would join the turn that had ended; and a queued message's editor
// left the page with its message when the message started running, taking the text typed in it.
// Needs `pnpm build`; without Chromium outside CI it is not registered (no-browser.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium, servedWithSessions, slowAnswer, until, type Served } from './harness.js'
import { composer, dock, dockTexts, noticesSeen, recordNotices, send, turn } from './page.js'

const post = (url: string, path: string, body: unknown): Promise<Response> => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const IDS = ['counted', 'edited', 'stopped']
const sessions = (page: Page) => page.getByRole('navigation', { name: 'Sessions' })
const streaming = async (page: Page): Promise<boolean> => ((await turn(page, 1).getByTestId('assistant-text').first().textContent().catch(() => '')) ?? '') !== ''

if (hasChromium) {
  describe('the web UI\'s search, queue count and queue edits, in Chromium', () => {
    let served: Served | undefined
    beforeAll(async () => {
      // Each session's first answer streams for about a minute; later ones echo at once.
      served = await servedWithSessions([slowAnswer(6000)], IDS)
    }, 60_000)
    afterAll(async () => {
      await served?.close()
    }, 60_000)

    it('says that a search matched no session, and lists them again once it is cleared', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(served!.server.url)
        const list = sessions(page).getByRole('list', { name: 'Session list' })
        await until(async () => (await list.getByRole('button').count()) === IDS.length, 'the sessions listed')
        const search = sessions(page).getByRole('searchbox', { name: 'Search sessions' })
        await search.fill('nothing-like-this')
        const status = sessions(page).getByRole('status')
        await until(async () => (await status.count()) === 1 && (await status.textContent()) === 'No session id or first prompt contains "nothing-like-this".', 'the no-match line')
        expect(await list.getByRole('button').count()).toBe(0)
        await search.fill('')
        await until(async () => (await list.getByRole('button').count()) === IDS.length && (await status.count()) === 0, 'the list back, the line gone')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('counts the queued follow-ups the dock shows, and the pending steer apart', async () => {
      const { url } = served!.server
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${url}/#/s/counted`)
        await send(page, 'tell me at length')
        await until(() => streaming(page), 'the first answer streaming')
        for (const text of ['one', 'two', 'three']) await send(page, text)
        await send(page, 'shorter, please', 'steer')
        await until(async () => (await dockTexts(page)).length === 3, 'three in the dock')
        await until(async () => (await page.getByRole('region', { name: 'Pending steering' }).getByText('shorter, please').count()) === 1, 'the steer pending')
        const row = sessions(page).getByRole('button', { name: /^counted/ })
        await until(async () => /3 queued.*1 steer pending/.test((await row.textContent()) ?? ''), 'the row saying 3 queued and 1 steer pending')
        expect(await row.textContent()).not.toMatch(/4 queued/)
      } finally {
        await post(url, '/v1/sessions/counted/cancel', { keepInbox: false })
        await page.close()
      }
    }, 120_000)

    it('says that a steer left pending by Stop joins the next turn, and it does', async () => {
      const { url } = served!.server
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${url}/#/s/stopped`)
        await send(page, 'tell me at length')
        await until(() => streaming(page), 'the first answer streaming')
        await send(page, 'after the stop', 'steer')
        const pending = page.getByRole('region', { name: 'Pending steering' })
        await until(async () => /pending\s*after the stop/i.test((await pending.textContent().catch(() => '')) ?? ''), 'the steer pending in the running turn')
        await page.getByRole('button', { name: 'Stop', exact: true }).click()
        await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent()) === 'aborted', 'turn 1 stopped')
        await until(async () => /pending — joins the next turn\s*after the stop/i.test((await pending.textContent().catch(() => '')) ?? ''), 'the steer said to join the next turn')
        await page.getByRole('button', { name: 'Resume' }).click()
        await until(async () => (await turn(page, 2).getByText('after the stop', { exact: true }).count()) === 1, 'the steer in turn 2')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('gives the text being edited to the Message box when its queued message starts running, and says so', async () => {
      const { url } = served!.server
      const page = await served!.browser.context.newPage()
      try {
        await recordNotices(page) // the notice is information: it may leave (12 s) before a busy machine looks
        await page.goto(`${url}/#/s/edited`)
        await send(page, 'tell me at length')
        await until(() => streaming(page), 'the first answer streaming')
        await send(page, 'first')
        await until(async () => (await dockTexts(page)).join('|') === 'first', 'first queued')

        await dock(page).getByRole('button', { name: 'Edit: first' }).click()
        await page.getByRole('textbox', { name: 'Edit queued message' }).pressSequentially(', and longer')
        // The turn stopped with the queue kept, then woken: the next turn claims 'first' while its editor is open.
        expect((await post(url, '/v1/sessions/edited/cancel', { keepInbox: true })).status).toBe(200)
        expect((await post(url, '/v1/sessions/edited/wake', {})).status).toBe(200)
        await until(async () => (await turn(page, 2).getByText('echo: first').count()) === 1, 'turn 2 ran "first" as it was')

        await until(async () => (await composer(page).inputValue()) === 'first, and longer', 'the edit in the Message box')
        await until(async () => (await noticesSeen(page)).seen.some((text) => text.includes('"first" started running before your edit was saved')), 'the notice saying why')
        await until(async () => (await page.evaluate('document.activeElement?.id')) === 'message-box', 'the focus in the Message box')
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
