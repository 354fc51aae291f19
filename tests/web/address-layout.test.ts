// The page's address and its layout in Chromium against the built `bosun serve` (found walking the
// web UI, V3): an address changed while the page is open (a link, the address bar, Back) opens
// that session; an address that does not decode still draws the page; a session the host does not
// have is said in its place, with no controls; in a narrow window (a phone, a half screen) the
// header's Stop and a queued message's text stay on screen; a word wider than the conversation
// breaks. Needs `pnpm build`; without Chromium outside CI it is not registered (no-browser.test.ts
// says how to enable it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleMessage, Page } from 'playwright-core'
import { hasChromium, screenshot, servedWithSessions, slowAnswer, until, type Serve, type Served } from './harness.js'
import { composer, dock, dockTexts, send, turn } from './page.js'

const heading = (page: Page) => page.getByRole('main', { name: 'Session' }).getByRole('heading', { level: 1 })

if (hasChromium) {
  describe('the web UI\'s address and narrow layout, in Chromium', () => {
    let served: Served | undefined
    let server: Serve
    let browser: Served['browser']
    beforeAll(async () => {
      // Each session's first answer streams for about a minute: the narrow test stops it.
      served = await servedWithSessions([slowAnswer(6000)], ['alpha', 'beta', 'a-b'])
      ;({ server, browser } = served)
    }, 60_000)
    afterAll(async () => {
      await served?.close()
    }, 60_000)

    it('opens the session the address names when it changes (address bar, link, Back); a mangled address or an unknown session still draws the page', async () => {
      const page = await browser.context.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))
      // Nothing the page asks for on a load fails (its request for /favicon.ico was a 404 on every load).
      const loadErrors: string[] = []
      const onConsole = (message: ConsoleMessage) => (message.type() === 'error' ? loadErrors.push(message.text()) : undefined)
      page.on('console', onConsole)
      try {
        await page.goto(`${server.url}/#/s/alpha`)
        await until(async () => (await heading(page).textContent()) === 'alpha', 'alpha open')
        expect(loadErrors).toEqual([])
        page.off('console', onConsole) // the unknown session below is a 404 by design
        // The address bar edited, or a link to another session followed, in the open page.
        await page.evaluate("window.location.hash = '#/s/beta'")
        await until(async () => (await heading(page).textContent()) === 'beta', 'beta open after the address changed')
        await page.goBack()
        await until(async () => (await heading(page).textContent()) === 'alpha', 'alpha open again after Back')
        // A session opened from the page is a step in the tab's history too: Back returns to the one before.
        await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^beta/ }).click()
        await until(async () => (await heading(page).textContent()) === 'beta' && page.url().endsWith('#/s/beta'), 'beta opened from the list')
        await page.goBack()
        await until(async () => (await heading(page).textContent()) === 'alpha' && page.url().endsWith('#/s/alpha'), 'alpha again after Back')

        // An escape that does not decode: the page, with nothing selected (it was blank, on a URIError).
        await page.goto(`${server.url}/#/s/%E0%A4%A`)
        await page.reload()
        await until(async () => (await page.getByRole('button', { name: 'New session' }).count()) === 1, 'the page drawn')
        expect(await page.getByText('Choose a session on the left, or start a new one.').count()).toBe(1)

        // A session the host does not have: said in its place; no status, Stop or message box that could only fail.
        await page.goto(`${server.url}/#/s/no-such-session`)
        await page.reload()
        const alert = page.getByRole('main', { name: 'Session' }).getByRole('alert')
        await until(async () => /Session "no-such-session" is not on this host/.test((await alert.textContent().catch(() => '')) ?? ''), 'the session said missing')
        expect(await composer(page).count()).toBe(0)
        expect(await page.getByRole('button', { name: 'Stop', exact: true }).count()).toBe(0)
        await screenshot(page, 'missing-session')
        // An id no session can have (the host answers 400 at /id): said in its place too, with no notice to reload beside it.
        await page.goto(`${server.url}/#/s/..%2F..%2Fetc`)
        await page.reload()
        await until(async () => /^"\.\.\/\.\.\/etc" is not a session id/.test((await alert.textContent().catch(() => '')) ?? ''), 'the id said to be none')
        expect(await composer(page).count()).toBe(0)
        expect(await page.getByText('Reload the page').count()).toBe(0)
        expect(errors).toEqual([])
      } finally {
        await page.close()
      }
    }, 120_000)

    it('an address spelled otherwise than the page\'s own opens its session in place: the address is normalised, no history entry is added', async () => {
      const page = await browser.context.newPage()
      try {
        await page.goto(`${server.url}/#/s/alpha`)
        await until(async () => (await heading(page).textContent()) === 'alpha', 'alpha open')
        const entries = async () => Number(await page.evaluate('history.length'))
        const before = await entries()
        // A link (or the address bar) naming a-b with its '-' escaped: one step in the tab's history.
        await page.evaluate("window.location.hash = '#/s/a%2Db'")
        await until(async () => (await heading(page).textContent()) === 'a-b' && page.url().endsWith('#/s/a-b'), 'a-b open at its own address')
        // The page wrote its own spelling over the step the user took; it pushed a second one before.
        expect(await entries()).toBe(before + 1)
        await page.goBack()
        await until(async () => (await heading(page).textContent()) === 'alpha' && page.url().endsWith('#/s/alpha'), 'alpha again after one Back')
        // Loaded so: the page's own address in place, nothing to go Back to but the page before.
        await page.goto(`${server.url}/#/s/a%2Db`)
        await page.reload()
        await until(async () => (await heading(page).textContent()) === 'a-b' && page.url().endsWith('#/s/a-b'), 'a-b open on a load')
        const loaded = await entries()
        await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^beta/ }).click()
        await until(async () => page.url().endsWith('#/s/beta'), 'beta opened from the list')
        expect(await entries()).toBe(loaded + 1)
        await page.goBack()
        await until(async () => (await heading(page).textContent()) === 'a-b' && page.url().endsWith('#/s/a-b'), 'a-b again after Back')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('in a 420-pixel window the list sits above the session, Stop is on screen, a queued message shows its text, and a long queue leaves the conversation in view', async () => {
      const page = await browser.context.newPage()
      try {
        await page.setViewportSize({ width: 420, height: 860 })
        await page.goto(`${server.url}/#/s/alpha`)
        await until(async () => (await heading(page).textContent()) === 'alpha', 'alpha open')
        await send(page, 'Tell me about the bosun, at length.')
        await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent().catch(() => '')) === 'running', 'turn 1 running')
        await send(page, 'a follow-up that waits its turn')
        await until(async () => (await dockTexts(page)).length === 1, 'one queued')
        await screenshot(page, 'narrow')

        const inView = async (name: string) => {
          const box = await page.getByRole('button', { name, exact: true }).boundingBox()
          return box !== null && box.x >= 0 && box.x + box.width <= 420 && box.width > 0
        }
        expect(await inView('Stop')).toBe(true)
        expect(await inView('Stop and clear queue')).toBe(true)
        expect(await inView('Inspector')).toBe(true)
        const title = await heading(page).boundingBox()
        expect(title!.width).toBeGreaterThan(20)
        expect(title!.x + title!.width).toBeLessThanOrEqual(420)
        const text = await dock(page).getByText('a follow-up that waits its turn').boundingBox()
        expect(text!.width).toBeGreaterThan(100)

        // A long queue scrolls in what the conversation leaves it: the running answer stays in view
        // (seven queued took all but ~80 px of it, 27 px in an 800-pixel window), the Message box whole.
        for (let n = 2; n <= 7; n++) await send(page, `follow-up ${n}, waiting behind the others`)
        await until(async () => (await dockTexts(page)).length === 7, 'seven queued')
        await screenshot(page, 'narrow-long-queue')
        const conversation = await page.getByRole('log', { name: 'Conversation' }).boundingBox()
        expect(conversation!.height).toBeGreaterThanOrEqual(160)
        const box = await composer(page).boundingBox()
        expect(box!.y + box!.height).toBeLessThanOrEqual(860)
        expect(await dock(page).getByRole('listitem').first().isVisible()).toBe(true)

        await page.getByRole('button', { name: 'Stop and clear queue' }).click()
        await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent()) === 'aborted', 'turn 1 aborted')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('breaks a word wider than the conversation (a long URL) instead of scrolling the conversation sideways', async () => {
      const page = await browser.context.newPage()
      try {
        const url = `https://example.com/${'a'.repeat(400)}`
        await page.goto(`${server.url}/#/s/beta`)
        await until(async () => (await heading(page).textContent()) === 'beta', 'beta open')
        await send(page, url)
        await until(async () => (await turn(page, 1).getByText(url).count()) === 1, 'the message drawn in turn 1')
        const log = page.getByRole('log', { name: 'Conversation' })
        const [scrollWidth, clientWidth] = await log.evaluate((element) => [element.scrollWidth, element.clientWidth])
        expect(scrollWidth).toBeLessThanOrEqual(clientWidth)
        await page.getByRole('button', { name: 'Stop and clear queue' }).click()
        await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent()) === 'aborted', 'turn 1 aborted')
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
