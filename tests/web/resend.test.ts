// A message sent again after its answer was lost, in Chromium against the built `bosun serve`: the
// connection is cut after the host took the POST (the request goes to the host whole; the page's
// fetch then fails), the text comes back to the Message box, and sending it again is the same
// message — the host answers it as a duplicate, so the session holds it once and runs one turn for
// it. The text and its id are kept in the tab's sessionStorage, so a reload offers the text back and
// sending it is still the same message; two sends failing together each keep their own id. Text
// typed and not sent (the draft) is kept there too: a reload finds it in the box. Needs `pnpm build`; without Chromium outside CI it is not registered (no-browser.test.ts says
// how to enable it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page, Route } from 'playwright-core'
import { hasChromium, screenshot, servedWithSessions, until, type Serve, type Served } from './harness.js'
import { composer, noticesSeen, recordNotices, send } from './page.js'

if (hasChromium) {
  describe('sending again after a lost answer, in Chromium', () => {
    let served: Served | undefined
    let server: Serve
    let browser: Served['browser']
    beforeAll(async () => {
      served = await servedWithSessions([{ text: 'Deployed.', chunkSize: 5, delayMs: 10 }, { text: 'Deployed again.', chunkSize: 5, delayMs: 10 }], ['resend', 'reload', 'together', 'draft'])
      ;({ server, browser } = served)
    }, 60_000)
    afterAll(async () => {
      await served?.close()
    }, 60_000)

    /** Runs `body` on a new page, closed after it; a failure leaves a screenshot named `failure`. */
    const withPage = async (failure: string, body: (page: Page) => Promise<void>): Promise<void> => {
      const page = await browser.context.newPage()
      try {
        await body(page)
      } catch (error) {
        await screenshot(page, failure).catch(() => {})
        throw error
      } finally {
        await page.close()
      }
    }

    /** The ids of the user messages the session's log admitted. */
    const admitted = async (session = 'resend'): Promise<string[]> => {
      const { events } = (await (await fetch(`${server.url}/v1/sessions/${session}/events`)).json()) as { events: { type: string; data: { inserted?: { id: string; source?: { kind?: string } }[] } }[] }
      return [...new Set(events.filter((event) => event.type === 'agent/inbox/spliced').flatMap((event) => event.data.inserted ?? []).filter((message) => message.source?.kind === 'user').map((message) => message.id))]
    }

    /**
     * Lets the first `count` POSTs of a message in `session` reach the host whole, held until all of
     * them have come (so they are on their way together), then cuts each one's answer.
     */
    const loseAnswers = async (page: Page, session: string, count: number): Promise<void> => {
      const held: Route[] = []
      await page.route(`**/v1/sessions/${session}/messages`, async (route) => {
        if (route.request().method() !== 'POST' || held.length >= count) return route.continue()
        held.push(route)
        if (held.length < count) return
        for (const each of held) await each.fetch()
        for (const each of held) await each.abort('connectionreset')
      })
    }
    const notSentTwiceSaid = async (page: Page): Promise<boolean> => (await noticesSeen(page)).seen.some((text) => text.includes('Not sent twice'))

    /** Opens `session` in `page` with the answers to its first `count` message POSTs lost (loseAnswers), its notices recorded. */
    const openLosingAnswers = async (page: Page, session: string, count: number): Promise<void> => {
      await loseAnswers(page, session, count)
      await recordNotices(page, ['Not sent twice'])
      await page.goto(`${server.url}/#/s/${session}`)
      await until(async () => (await composer(page).count()) === 1, 'the message box')
    }
    const unsentKept = (page: Page, session: string) => page.evaluate(`sessionStorage.getItem('bosun.unsent.${session}')`)
    const keptTexts = async (page: Page, session: string): Promise<string[]> => ((JSON.parse(String((await unsentKept(page, session)) ?? '[]')) as { text: string }[]).map((entry) => entry.text))

    it('the text that came back, sent again unchanged, is one message in the session, not two', async () => {
      await withPage('failure-resend', async (page) => {
        // The first POST of a message reaches the host whole; its answer never reaches the page.
        await openLosingAnswers(page, 'resend', 1)

        await send(page, 'deploy the fix to staging')
        await until(async () => (await page.getByRole('alert').filter({ hasText: 'Queueing failed: the host could not be reached' }).count()) === 1, 'the failure notice')
        await until(async () => (await composer(page).inputValue()) === 'deploy the fix to staging', 'the text back in the box')
        expect(await admitted()).toHaveLength(1)
        // An error stays until dismissed: its Dismiss, from the keyboard, takes it away and puts the focus back in the box.
        await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).press('Enter')
        await until(async () => (await page.getByRole('alert').count()) === 0, 'the failure notice dismissed')
        expect(await page.evaluate('document.activeElement?.id')).toBe('message-box')

        await composer(page).press('Enter')
        await until(async () => (await notSentTwiceSaid(page)) || (await admitted()).length > 1, 'the answer to the send again')
        expect(await admitted()).toHaveLength(1)
        expect(await notSentTwiceSaid(page)).toBe(true)
        expect(await composer(page).inputValue()).toBe('')
        await screenshot(page, 'resend-not-twice')
      })
    }, 120_000)

    it('a reload offers back the text whose answer was lost, and sending it is still the one message', async () => {
      await withPage('failure-resend-reload', async (page) => {
        await openLosingAnswers(page, 'reload', 1)
        await send(page, 'roll back the release')
        await until(async () => (await page.getByRole('alert').filter({ hasText: 'Queueing failed' }).count()) === 1, 'the failure notice')
        expect(await admitted('reload')).toHaveLength(1)

        await page.reload()
        await until(async () => (await composer(page).count()) === 1 && (await composer(page).inputValue()) === 'roll back the release', 'the text offered again after the reload')
        await composer(page).press('Enter')
        await until(async () => (await notSentTwiceSaid(page)) || (await admitted('reload')).length > 1, 'the answer to the send again')
        expect(await admitted('reload')).toHaveLength(1)
        expect(await composer(page).inputValue()).toBe('')
        // Taken: nothing left to offer on the next reload.
        await until(async () => (await unsentKept(page, 'reload')) === null, 'the kept text forgotten')
      })
    }, 120_000)

    it('two sends whose answers were lost together each come back with their own id: sent again, still two messages', async () => {
      await withPage('failure-resend-together', async (page) => {
        await openLosingAnswers(page, 'together', 2)
        await send(page, 'first of two')
        await send(page, 'second of two')
        // One notice says so: the second failure replaces the first's (a notice per action, not per send).
        await until(async () => (await admitted('together')).length === 2 && (await page.getByRole('alert').filter({ hasText: 'Queueing failed' }).count()) === 1, 'both sends admitted, the failure said')

        // Whichever came back first is in the box; once it is taken, the other is offered in its place.
        const backInBox = new Set<string>()
        for (const taken of [1, 2]) {
          const text = await until(async () => {
            const value = await composer(page).inputValue()
            return /^(first|second) of two$/.test(value) && !backInBox.has(value) ? value : null
          }, `an unsent text in the box (${taken})`)
          backInBox.add(text)
          await composer(page).press('Enter')
          // Taken (answered a duplicate): its kept text is forgotten. The notice saying so replaces the one before.
          await until(async () => !(await keptTexts(page, 'together')).includes(text) || (await admitted('together')).length > 2, `the answer to send again ${taken}`)
          expect(await admitted('together')).toHaveLength(2)
        }
        // Said, and the second notice replaced the first instead of stacking beside it.
        expect(await notSentTwiceSaid(page)).toBe(true)
        expect((await noticesSeen(page)).most['Not sent twice']).toBe(1)
        expect(await composer(page).inputValue()).toBe('')
        await until(async () => (await unsentKept(page, 'together')) === null, 'the kept texts forgotten')
      })
    }, 120_000)

    it('a reload keeps what was typed and not sent; once sent, a reload finds the box empty', async () => {
      await withPage('failure-draft-reload', async (page) => {
        await page.goto(`${server.url}/#/s/draft`)
        await until(async () => (await composer(page).count()) === 1, 'the message box')
        await composer(page).fill('a draft\nover two lines')
        await page.reload()
        await until(async () => (await composer(page).count()) === 1 && (await composer(page).inputValue()) === 'a draft\nover two lines', 'the draft back after the reload')
        await composer(page).press('Enter')
        await until(async () => (await admitted('draft')).length === 1, 'the draft sent')
        expect(await composer(page).inputValue()).toBe('')
        // Admitted by the host is not yet answered to the page: until the answer arrives the page
        // keeps the send, and a reload offers it again (its id makes a second send a duplicate).
        await until(async () => (await unsentKept(page, 'draft')) === null, 'the answer to the send')
        await page.reload()
        await until(async () => (await composer(page).count()) === 1, 'the message box again')
        expect(await composer(page).inputValue()).toBe('')
        expect(await page.evaluate(`sessionStorage.getItem('bosun.draft.draft')`)).toBeNull()
      })
    }, 120_000)
  })
}
