/** What the browser tests do on the page, by role and accessible name (what a screen reader hears). */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Locator, Page } from 'playwright-core'
import { until } from './harness.js'

export const composer = (page: Page): Locator => page.getByRole('textbox', { name: /^Message/ })
export const dock = (page: Page): Locator => page.getByRole('region', { name: 'Queue' })
export const turn = (page: Page, n: number): Locator => page.getByRole('article', { name: `Turn ${n}`, exact: true })
export const reasonOf = (page: Page, n: number): Promise<string | null> => turn(page, n).getByTestId('turn-reason').textContent({ timeout: 30_000 })

export async function send(page: Page, text: string, how: 'queue' | 'steer' = 'queue'): Promise<void> {
  await composer(page).fill(text)
  await composer(page).press(how === 'steer' ? 'Control+Enter' : 'Enter')
}

/** The queued follow-ups' texts, in order, as the dock shows them. */
export async function dockTexts(page: Page): Promise<string[]> {
  if ((await dock(page).count()) === 0) return []
  const labels = await dock(page).getByRole('listitem').evaluateAll((items) => items.map((item) => item.getAttribute('aria-label') ?? ''))
  return labels.map((label) => label.replace(/^Queued message \d+: /, ''))
}

export async function waitForReason(page: Page, n: number, reason: string | RegExp, timeoutMs = 60_000): Promise<void> {
  await until(async () => {
    if ((await turn(page, n).count()) === 0) return false
    const text = await turn(page, n).getByTestId('turn-reason').textContent()
    return typeof reason === 'string' ? text === reason : reason.test(text ?? '')
  }, `turn ${n} to end ${String(reason)}`, timeoutMs)
}

/** The seq of the last event the page folded. */
export async function lastSeq(page: Page): Promise<number> {
  return Number(await page.getByRole('log', { name: 'Conversation' }).getAttribute('data-last-seq'))
}

/** The conversation as text (turn headers, inputs, answers, rows), for comparing two tabs. */
export async function conversationText(page: Page): Promise<string> {
  return page.getByRole('log', { name: 'Conversation' }).innerText()
}

/** The focused element's accessible name, roughly: aria-label, its label, or its text (run in the page). */
const FOCUSED_NAME = `(() => {
  const element = document.activeElement
  if (element === null) return ''
  const label = element.getAttribute('aria-label') ?? (element.id ? document.querySelector('label[for="' + element.id + '"]')?.textContent : null) ?? element.closest('label')?.textContent ?? element.textContent ?? ''
  return label.trim()
})()`

/** Presses Tab until the focused element's accessible name matches; fails after `max` presses. */
export async function tabTo(page: Page, name: string | RegExp, max = 80): Promise<void> {
  for (let index = 0; index < max; index += 1) {
    await page.keyboard.press('Tab')
    const focused = String(await page.evaluate(FOCUSED_NAME))
    if (typeof name === 'string' ? focused === name : name.test(focused)) return
  }
  throw new Error(`Tab never reached ${String(name)}`)
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** axe-core's WCAG 2.x A/AA violations on the page as it is now (id, impact, first target). */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string | null; targets: string[] }[]> {
  await page.evaluate(axeSource)
  return page.evaluate(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')) }))
  })()`)
}

/** What `recordNotices` saw: every notice text shown, and for each phrase it was given the most notices with it shown at once. */
export interface NoticesSeen { seen: string[]; most: Record<string, number> }

/**
 * Records in `page` — from its next load on, each reload too — every notice text shown (anything
 * `role="status"` or `role="alert"`) as it appears, and the most notices holding each of `phrases`
 * shown at once. An information notice leaves on its own after 12 s, so a check of the page as it is
 * now could miss one on a busy machine; what was recorded stays.
 */
export async function recordNotices(page: Page, phrases: readonly string[] = []): Promise<void> {
  await page.addInitScript(`
    window.__notices = { seen: [], most: {} }
    const phrases = ${JSON.stringify(phrases)}
    new MutationObserver(() => {
      const shown = [...document.querySelectorAll('[role=status], [role=alert]')].map((notice) => notice.textContent ?? '')
      for (const text of shown) if (text !== '' && !window.__notices.seen.includes(text)) window.__notices.seen.push(text)
      for (const phrase of phrases) window.__notices.most[phrase] = Math.max(window.__notices.most[phrase] ?? 0, shown.filter((text) => text.includes(phrase)).length)
    }).observe(document, { subtree: true, childList: true, characterData: true })
  `)
}

/** What `recordNotices` recorded in `page` so far. */
export const noticesSeen = (page: Page): Promise<NoticesSeen> => page.evaluate('window.__notices') as Promise<NoticesSeen>
