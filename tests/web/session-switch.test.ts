// Switching sessions in Chromium against the built `bosun serve` (found walking the web UI, V3):
// the conversation follows its end per session — having scrolled up in one session, the next one
// opened was drawn from its first turn, and what was sent there (and the answer) stayed out of
// sight below. Needs `pnpm build`; without Chromium outside CI it is not registered
// (no-browser.test.ts says how to enable it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasChromium, servedWithSessions, until, type Served } from './harness.js'
import { send, turn } from './page.js'

const TURNS = 25

if (hasChromium) {
  describe('switching sessions, in Chromium', () => {
    let served: Served | undefined
    beforeAll(async () => {
      // No scripted responses: the model echoes, so each session's turns end at once.
      served = await servedWithSessions([], ['alpha', 'beta'])
      const { url } = served.server
      for (const id of ['alpha', 'beta']) {
        for (let index = 1; index <= TURNS; index += 1) {
          const sent = await fetch(`${url}/v1/sessions/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientMessageId: `${id}-${index}`, content: [{ type: 'text', text: `${id} message ${index}` }] }) })
          expect(sent.status).toBe(202)
        }
      }
    }, 60_000)
    afterAll(async () => {
      await served?.close()
    }, 60_000)

    it('opens the next session at its end after scrolling up in one, and follows what is sent there', async () => {
      const page = await served!.browser.context.newPage()
      try {
        await page.goto(`${served!.server.url}/#/s/alpha`)
        const conversation = page.getByRole('log', { name: 'Conversation' })
        await until(async () => (await turn(page, TURNS).getByTestId('turn-reason').textContent().catch(() => null)) === 'completed', 'alpha drawn to its last turn')
        await conversation.hover()
        await page.mouse.wheel(0, -100_000)
        await until(async () => (await conversation.evaluate((element) => element.scrollTop)) === 0 && (await turn(page, 1).count()) === 1, 'alpha scrolled to its top')

        await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^beta/ }).click()
        await until(async () => (await turn(page, TURNS).getByTestId('turn-reason').textContent().catch(() => null)) === 'completed', 'beta opened at its last turn')
        await send(page, 'beta, once more')
        await until(async () => (await turn(page, TURNS + 1).getByText('echo: beta, once more').count()) === 1, 'the answer to what was sent drawn')
        const { scrollTop, scrollHeight, clientHeight } = await conversation.evaluate((element) => ({ scrollTop: element.scrollTop, scrollHeight: element.scrollHeight, clientHeight: element.clientHeight }))
        expect(scrollHeight - scrollTop - clientHeight).toBeLessThan(48)
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
