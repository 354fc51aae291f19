// The login form in Chromium against the built `bosun serve` with a token (BOSUN_HOST_TOKEN):
// a wrong token is refused on the form, the right one loads the session list on the host's
// HttpOnly cookie, and the token is kept nowhere in the page; Log out ends the cookie. Needs `pnpm build`; without
// Chromium outside CI it is not registered (no-browser.test.ts says how to enable it).
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasChromium, launch, screenshot, serve, until, workspace, type Serve, type Workspace } from './harness.js'
import { axeViolations } from './page.js'

if (hasChromium) {
  describe('the web UI of a host with a token, in Chromium', () => {
    const token = randomBytes(24).toString('hex')
    let work: Workspace
    let server: Serve
    let browser: Awaited<ReturnType<typeof launch>>
    beforeAll(async () => {
      work = await workspace([])
      server = await serve(work.dir, { env: { BOSUN_HOST_TOKEN: token } })
      browser = await launch()
      // A session made with the token over the API: the list shows it once the page is in.
      const created = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'behind-the-token' }) })
      expect(created.status).toBe(201)
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      await server?.stop()
      await work?.cleanup()
    }, 60_000)

    it('asks for the token: a wrong one is refused on the form, the right one loads the session list, no axe-core violations', async () => {
      const page = await browser.context.newPage()
      try {
        await page.goto(server.url)
        const form = page.getByRole('form', { name: 'Log in to this Bosun host' })
        await until(async () => (await form.count()) === 1, 'the login form')
        const field = page.getByLabel('Host token')
        expect(await field.getAttribute('type')).toBe('password')
        expect(await axeViolations(page)).toEqual([])

        await field.fill('not-the-token-' + 'x'.repeat(32))
        await field.press('Enter')
        const alert = form.getByRole('alert')
        await until(async () => (await alert.count()) === 1, 'the wrong-token error')
        expect(await alert.textContent()).toMatch(/^Wrong token/)
        expect(await field.inputValue()).toBe('')
        expect(await axeViolations(page)).toEqual([])
        await screenshot(page, 'login')

        await field.fill(token)
        await page.getByRole('button', { name: 'Log in' }).click()
        const list = page.getByRole('list', { name: 'Session list' })
        await until(async () => (await list.getByRole('button', { name: /^behind-the-token/ }).count()) === 1, 'the session list after login')
        // The cookie is HttpOnly (the page's script cannot read it); the token is nowhere in the page.
        const cookies = await browser.context.cookies(`${server.url}/v1/sessions`)
        expect(cookies.filter((cookie) => cookie.httpOnly && cookie.sameSite === 'Strict')).toHaveLength(1)
        expect(await page.evaluate('document.cookie')).toBe('')
        expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0)
        expect(await page.content()).not.toContain(token)

        // Live on the cookie: a session made elsewhere appears without a reload.
        await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'made-after-login' }) })
        await until(async () => (await list.getByRole('button', { name: /^made-after-login/ }).count()) === 1, 'a session created after the login')
        expect(await axeViolations(page)).toEqual([])

        // Log out ends the cookie: the form again, and the host refuses the page.
        await page.getByRole('button', { name: 'Log out' }).click()
        await until(async () => (await form.count()) === 1, 'the login form after logging out')
        const refused = await page.evaluate(`fetch('/v1/sessions').then((response) => response.status)`)
        expect(refused).toBe(401)
      } catch (error) {
        await screenshot(page, 'failure-login')
        throw error
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
