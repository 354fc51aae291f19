// @vitest-environment happy-dom
// What the reader collapsed or opened in the timeline survives virtualisation: a row scrolled out
// of the DOM and back shows its step collapsed, its reasoning open and its result shown whole.
// The page's store and components against a real host in process (memory store, scripted model).
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type Tool } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient } from '@bosun/host/client'
import { StoreProvider } from '../app/components/store-context.js'
import { Timeline } from '../app/components/Timeline.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'

// happy-dom has no layout: give the scroller a viewport and each timeline row a height, so the
// virtualiser keeps only the rows near the visible ones in the DOM.
Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })
Object.defineProperty(HTMLElement.prototype, 'offsetHeight', { configurable: true, get(this: HTMLElement) { return this.hasAttribute('data-index') ? 300 : 0 } })

const RESULT = 'r'.repeat(1500)
const longResult: Tool = { name: 'survey', description: 'Returns a long report.', parameters: { type: 'object', properties: {} }, execute: async () => RESULT }

let host: Host | undefined
let store: AppStore | undefined
afterEach(async () => {
  store?.getState().dispose()
  cleanup()
  await host?.close()
})

const turnEnded = (turn: number) => () => store!.getState().view.items.some((item) => item.kind === 'turn' && item.turn === turn && item.reason?.kind === 'completed')
const article = (turn: number) => screen.queryByRole('article', { name: `Turn ${turn}` })

it('a collapsed step, an opened reasoning and a result shown whole stay so when their row is scrolled out of the DOM and back', async () => {
  // Turn 1: a step with reasoning and a tool call (a long result), then a step with the answer; later turns echo.
  host = createHost({
    store: memoryStore(),
    agentFactory: ({ sessionId, store: sessions }) => createAgent({ model: scripted({ responses: [{ reasoning: 'First I think about the survey.', toolCalls: [{ name: 'survey' }] }, { text: 'The survey is done.' }] }), tools: [longResult], store: sessions, sessionId }),
    limits: { keepAliveMs: 200 },
  })
  const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host!.fetch(new Request(input as string, init)) })
  await client.createSession('voyage')
  store = createAppStore({ client })
  render(
    <StoreProvider store={store}>
      <Timeline />
    </StoreProvider>,
  )
  act(() => store!.getState().select('voyage'))
  await client.send('voyage', { content: 'survey the deck' })
  await until(turnEnded(1), 'turn 1 to end')
  const first = await until(() => article(1), 'turn 1 drawn')

  // The reader opens the reasoning, shows the whole result and collapses the answer's step.
  const reasoning = first.querySelector('details')!
  expect(reasoning.open).toBe(false)
  reasoning.open = true
  fireEvent(reasoning, new Event('toggle'))
  fireEvent.click(within(first).getByRole('button', { name: /Show all/ }))
  fireEvent.click(within(first).getByRole('button', { name: /Step 2/ }))
  await until(() => within(article(1)!).getByRole('button', { name: /Step 2/ }).getAttribute('aria-expanded') === 'false', 'step 2 collapsed')
  expect(within(article(1)!).getByRole('region', { name: 'Tool survey' }).textContent).toContain(RESULT)

  // Enough turns after it that, following the end, turn 1 leaves the DOM.
  for (let turn = 2; turn <= 30; turn += 1) await client.send('voyage', { content: `message ${turn}` })
  await until(turnEnded(30), 'turn 30 to end', 30_000)
  const log = screen.getByRole('log', { name: 'Conversation' })
  const scrollTo = (top: number): void => {
    fireEvent.wheel(log)
    log.scrollTop = top
    fireEvent.scroll(log)
  }
  scrollTo(29 * 300)
  await until(() => article(30), 'the end drawn')
  await until(() => article(1) === null, 'turn 1 virtualised away')
  expect(document.querySelectorAll('article').length).toBeLessThan(20)

  // Back to the top, as a reader scrolls.
  scrollTo(0)
  const again = await until(() => article(1), 'turn 1 drawn again')
  expect(within(again).getByRole('button', { name: /Step 2/ }).getAttribute('aria-expanded')).toBe('false')
  expect(within(again).queryByText('The survey is done.')).toBeNull()
  expect(again.querySelector('details')!.open).toBe(true)
  expect(within(again).getByRole('region', { name: 'Tool survey' }).textContent).toContain(RESULT)
  expect(within(again).getByRole('button', { name: 'Show less' })).toBeTruthy()
  // Step 1 was left open, as by default.
  expect(within(again).getByRole('button', { name: /Step 1/ }).getAttribute('aria-expanded')).toBe('true')
}, 60_000)
