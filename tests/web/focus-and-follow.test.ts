// Found walking the web UI (V3), in Chromium against the built `bosun serve`: the conversation
// follows its end per session — having scrolled up in one session, the next one opened was drawn
// from its first turn, and what was sent there (and the answer) stayed out of sight below; the
// keyboard focus stays on the page — closing a queued message's editor (Escape, Enter), removing
// or promoting a message, Stop (disabled once the turn stops), closing the inspector, Fork (its turn
// leaves the page as the fork opens) and Resume (it leaves with the paused notice) left it on
// nothing, so the next Tab started again at the top of the page; New session, Send and Steer left
// it on their button, away from the Message box where the next words are typed. Needs `pnpm build`; without
// Chromium outside CI it is not registered (no-browser.test.ts says how to enable it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium, servedWithSessions, slowAnswer, until, type Served } from './harness.js'
import { composer, dock, dockTexts, send, turn } from './page.js'

const TURNS = 25

/** The focused element's aria-label, else its id (the Message box), else its text. */
const focused = (page: Page): Promise<string> => page.evaluate("(document.activeElement?.getAttribute('aria-label') || document.activeElement?.id || document.activeElement?.textContent || '').trim()")
/**
 * Waits for the focus to be on `expected`: some of it moves a tick after the change that causes it
 * (Radix gives the focus back from a timer after the dialog's content is gone), and a loaded
 * machine widens that tick — a single read right after the change failed on CI under load.
 */
const focusOn = (page: Page, expected: string): Promise<unknown> =>
  until(async () => (await focused(page)) === expected || undefined, `the focus on ${expected}`).catch(async (error: Error) => {
    throw new Error(`${error.message}; it is on ${JSON.stringify((await focused(page)).slice(0, 60))}`)
  })

const post = (url: string, path: string, body: unknown): Promise<Response> => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

if (hasChromium) {
  describe('the web UI follows the end per session and keeps the focus, in Chromium', () => {
    let served: Served | undefined
    beforeAll(async () => {
      // Each session's first answer streams for about a minute (the follow-ups stay queued meanwhile); later ones echo at once.
      served = await servedWithSessions([slowAnswer(6000)], ['alpha', 'beta', 'queue', 'parent', 'paused', 'clicked'])
    }, 60_000)
    afterAll(async () => {
      await served?.close()
    }, 60_000)

    it('opens the next session at its end after scrolling up in one, and follows what is sent there', async () => {
      const { url } = served!.server
      const page = await served!.browser.context.newPage()
      try {
        for (const id of ['alpha', 'beta']) {
          // The slow first answer is stopped once it streams; the next turns echo at once.
          await page.goto(`${url}/#/s/${id}`)
          await send(page, `${id} message 1`)
          await until(async () => ((await turn(page, 1).getByTestId('assistant-text').first().textContent().catch(() => '')) ?? '') !== '', `${id}'s first answer streaming`)
          await page.getByRole('button', { name: 'Stop', exact: true }).click()
          await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent()) === 'aborted', `${id}'s first turn stopped`)
          for (let index = 2; index <= TURNS; index += 1) {
            expect((await post(url, `/v1/sessions/${id}/messages`, { clientMessageId: `${id}-${index}`, content: [{ type: 'text', text: `${id} message ${index}` }] })).status).toBe(202)
          }
        }
        await page.goto(`${url}/#/s/alpha`)
        const conversation = page.getByRole('log', { name: 'Conversation' })
        await until(async () => (await turn(page, TURNS).getByTestId('turn-reason').textContent().catch(() => null)) === 'completed', 'alpha drawn to its last turn')
        await conversation.hover()
        await page.mouse.wheel(0, -100_000)
        await until(async () => (await conversation.evaluate((element) => element.scrollTop)) === 0 && (await turn(page, 1).count()) === 1, 'alpha scrolled to its top')

        await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^beta/ }).click()
        await until(async () => (await turn(page, TURNS).getByTestId('turn-reason').textContent().catch(() => null)) === 'completed', 'beta opened at its last turn')
        await send(page, 'beta, once more')
        await until(async () => (await turn(page, TURNS + 1).getByText('echo: beta, once more').count()) === 1, 'the answer to what was sent drawn')
        // Followed to the end: the list scrolls there, then settles over the next frames as the new
        // row is measured (slow frames on a loaded machine), so the gap is waited for, not read once.
        const gap = () => conversation.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight)
        await until(async () => (await gap()) < 48, 'the conversation followed to its end')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('keeps what was typed in a session\'s Message box, not sent, across a switch to another session and back', async () => {
      const page = await served!.browser.context.newPage()
      try {
        const list = page.getByRole('navigation', { name: 'Sessions' })
        const heading = page.getByRole('main', { name: 'Session' }).getByRole('heading', { level: 1 })
        await page.goto(`${served!.server.url}/#/s/alpha`)
        await until(async () => (await heading.textContent().catch(() => null)) === 'alpha', 'alpha open')
        await composer(page).fill('half a thought')
        await list.getByRole('button', { name: /^beta/ }).click()
        await until(async () => (await heading.textContent()) === 'beta', 'beta open')
        expect(await composer(page).inputValue()).toBe('')
        await list.getByRole('button', { name: /^alpha/ }).click()
        await until(async () => (await heading.textContent()) === 'alpha', 'alpha open again')
        expect(await composer(page).inputValue()).toBe('half a thought')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('puts the focus back on Edit when a queued message\'s editor closes, and on a neighbour (then the Message box) when a message leaves the dock', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${served!.server.url}/#/s/queue`)
        await send(page, 'tell me at length')
        await until(async () => (await turn(page, 1).count()) === 1, 'turn 1 drawn')
        for (const text of ['one', 'two', 'three']) await send(page, text)
        await until(async () => (await dockTexts(page)).length === 3, 'three queued')

        await dock(page).getByRole('button', { name: 'Edit: two' }).press('Enter')
        await page.keyboard.press('Escape')
        await focusOn(page, 'Edit: two')

        // Enter saves; its keypress must not click Edit again once the focus is back there.
        await page.keyboard.press('Enter')
        await page.keyboard.type(', reworded')
        await page.keyboard.press('Enter')
        await until(async () => (await dockTexts(page))[1] === 'two, reworded', 'the edit saved')
        await until(async () => (await focused(page)) === 'Edit: two, reworded', 'the focus on Edit after Enter')

        await dock(page).getByRole('button', { name: 'Remove: two, reworded' }).press('Enter')
        await until(async () => (await dockTexts(page)).join('|') === 'one|three', 'two removed')
        await focusOn(page, 'Queued message 2: three')

        await dock(page).getByRole('button', { name: 'Promote to steer: three' }).press('Enter')
        await until(async () => (await dockTexts(page)).join('|') === 'one', 'three promoted')
        await focusOn(page, 'Queued message 1: one')

        await dock(page).getByRole('button', { name: 'Remove: one' }).press('Enter')
        await until(async () => (await dockTexts(page)).length === 0, 'the dock empty')
        await focusOn(page, 'message-box')

        // Stop is disabled once the turn stops: the focus is not left on it (on nothing).
        await page.getByRole('button', { name: 'Stop', exact: true }).press('Enter')
        await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent()) === 'aborted', 'turn 1 stopped')
        await focusOn(page, 'message-box')

        // The inspector, opened from the keyboard and closed with Escape, gives the focus back to what opened it.
        for (const opener of ['Inspector', 'Inspect the events of turn 1']) {
          await page.getByRole('button', { name: opener, exact: true }).press('Enter')
          await until(async () => (await page.getByRole('dialog').count()) === 1, `the inspector open from ${opener}`)
          await page.keyboard.press('Escape')
          await until(async () => (await page.getByRole('dialog').count()) === 0, 'the inspector closed')
          await focusOn(page, opener)
        }
      } finally {
        await page.close()
      }
    }, 120_000)

    it('puts the focus in the fork\'s Message box after Fork, whose turn leaves the page', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${served!.server.url}/#/s/parent`)
        await send(page, 'a turn to fork')
        await until(async () => ((await turn(page, 1).getByTestId('assistant-text').first().textContent().catch(() => '')) ?? '') !== '', 'the first answer streaming')
        await page.getByRole('button', { name: 'Stop', exact: true }).press('Enter')
        await until(async () => (await turn(page, 1).getByTestId('turn-reason').textContent()) === 'aborted', 'turn 1 stopped')

        await page.getByRole('button', { name: 'Fork from turn 1' }).press('Enter')
        await until(async () => {
          const heading = await page.getByRole('main', { name: 'Session' }).getByRole('heading', { level: 1 }).textContent().catch(() => null)
          return heading !== null && heading !== 'parent' && (await turn(page, 1).getByText('(from the parent session)').count()) === 1
        }, 'the fork open, its seeded turn drawn')
        await focusOn(page, 'message-box')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('puts the focus in the Message box after Resume, which leaves the page once the queue runs', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${served!.server.url}/#/s/paused`)
        await send(page, 'tell me at length')
        await until(async () => (await turn(page, 1).count()) === 1, 'turn 1 drawn')
        await send(page, 'then this')
        await until(async () => (await dockTexts(page)).length === 1, 'one queued')
        await page.getByRole('button', { name: 'Stop', exact: true }).press('Enter')
        const resume = page.getByRole('button', { name: 'Resume' })
        await until(async () => (await resume.count()) === 1, 'the queue paused')
        await resume.press('Enter')
        await until(async () => (await turn(page, 2).getByText('echo: then this').count()) === 1, 'the queued message run')
        await focusOn(page, 'message-box')
      } finally {
        await page.close()
      }
    }, 120_000)

    it('puts the focus back in the Message box after a click on Send or Steer', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${served!.server.url}/#/s/clicked`)
        await composer(page).fill('sent by a click')
        await page.getByRole('button', { name: 'Send', exact: true }).click()
        await until(async () => (await turn(page, 1).count()) === 1, 'turn 1 drawn')
        await focusOn(page, 'message-box')
        await composer(page).fill('steered by a click')
        await page.getByRole('button', { name: 'Steer', exact: true }).click()
        await until(async () => (await page.getByRole('region', { name: 'Pending steering' }).getByText('steered by a click').count()) === 1, 'the steer pending')
        await focusOn(page, 'message-box')
      } finally {
        await post(served!.server.url, '/v1/sessions/clicked/cancel', { keepInbox: false })
        await page.close()
      }
    }, 120_000)

    it('puts the focus in the new session\'s Message box after New session', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${served!.server.url}/#/s/parent`)
        const heading = page.getByRole('main', { name: 'Session' }).getByRole('heading', { level: 1 })
        await until(async () => (await heading.textContent().catch(() => null)) === 'parent', 'parent open')
        await page.getByRole('button', { name: 'New session' }).press('Enter')
        await until(async () => !['parent', null].includes(await heading.textContent().catch(() => null)), 'the new session open')
        await focusOn(page, 'message-box')
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
