// A message sent again after its answer was lost, in Chromium against the built `bosun serve`: the
// connection is cut after the host took the POST (the request goes to the host whole; the page's
// fetch then fails), the text comes back to the Message box, and sending it again is the same
// message — the host answers it as a duplicate, so the session holds it once and runs one turn for
// it. Needs `pnpm build`; without Chromium outside CI it is not registered (no-browser.test.ts says
// how to enable it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, hasChromium, launch, screenshot, serve, until, workspace, type Serve, type Workspace } from './harness.js'
import { composer, send } from './page.js'

if (hasChromium) {
  describe('sending again after a lost answer, in Chromium', () => {
    let work: Workspace
    let server: Serve
    let browser: Awaited<ReturnType<typeof launch>>
    beforeAll(async () => {
      work = await workspace([{ text: 'Deployed.', chunkSize: 5, delayMs: 10 }, { text: 'Deployed again.', chunkSize: 5, delayMs: 10 }])
      server = await serve(work.dir, await freePort())
      browser = await launch()
      const created = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'resend' }) })
      expect(created.status).toBe(201)
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      await server?.stop()
      await work?.cleanup()
    }, 60_000)

    /** The ids of the user messages the session's log admitted. */
    const admitted = async (): Promise<string[]> => {
      const { events } = (await (await fetch(`${server.url}/v1/sessions/resend/events`)).json()) as { events: { type: string; data: { inserted?: { id: string; source?: { kind?: string } }[] } }[] }
      return [...new Set(events.filter((event) => event.type === 'agent/inbox/spliced').flatMap((event) => event.data.inserted ?? []).filter((message) => message.source?.kind === 'user').map((message) => message.id))]
    }

    it('the text that came back, sent again unchanged, is one message in the session, not two', async () => {
      const page = await browser.context.newPage()
      try {
        // The first POST of a message reaches the host whole; its answer never reaches the page.
        let cut = 0
        await page.route('**/v1/sessions/resend/messages', async (route) => {
          if (route.request().method() !== 'POST' || cut > 0) return route.continue()
          cut += 1
          await route.fetch()
          await route.abort('connectionreset')
        })
        await page.goto(`${server.url}/#/s/resend`)
        await until(async () => (await composer(page).count()) === 1, 'the message box')

        await send(page, 'deploy the fix to staging')
        await until(async () => (await page.getByRole('alert').filter({ hasText: 'Queueing failed: the host could not be reached' }).count()) === 1, 'the failure notice')
        await until(async () => (await composer(page).inputValue()) === 'deploy the fix to staging', 'the text back in the box')
        expect(await admitted()).toHaveLength(1)

        await composer(page).press('Enter')
        const status = page.getByRole('status').filter({ hasText: 'Not sent twice' })
        await until(async () => (await status.count()) === 1 || (await admitted()).length > 1, 'the answer to the send again')
        expect(await admitted()).toHaveLength(1)
        expect(await status.count()).toBe(1)
        expect(await composer(page).inputValue()).toBe('')
        await screenshot(page, 'resend-not-twice')
      } catch (error) {
        await screenshot(page, 'failure-resend').catch(() => {})
        throw error
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
