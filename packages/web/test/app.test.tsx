// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { definePlugin, type PluginEntry } from '@bosun/core'
import { PIECE_CHARACTERS } from '../app/components/AnswerText.js'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { SessionList } from '../app/components/SessionList.js'
import { ToolCard, RESULT_PREVIEW } from '../app/components/ToolCard.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { startHost, until, type Harness } from './host-harness.js'

// happy-dom has no layout engine: every element measures 0×0, which a virtualised list reads as
// "nothing on screen". Give elements a viewport-sized box so the timeline renders its rows.
Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })

let harness: Harness | undefined
let store: AppStore | undefined
afterEach(async () => {
  store?.getState().dispose()
  cleanup()
  await harness?.close()
  harness = undefined
  store = undefined
})

/** A long answer streamed one character every 10 ms: the turn runs while the test works the queue. */
const slow = (characters: number): ScriptedResponse => ({ text: 'a'.repeat(characters), chunkSize: 1, delayMs: 10 })

async function openPage(responses: () => ScriptedResponse[] = () => [], plugins: readonly PluginEntry[] = []): Promise<{ composer: HTMLTextAreaElement; id: string }> {
  harness = startHost(responses, plugins)
  store = createAppStore({ client: harness.client })
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  fireEvent.click(screen.getByRole('button', { name: 'New session' }))
  const id = await until(() => store!.getState().selected, 'a new session selected')
  const composer = await until(() => screen.queryByRole('textbox', { name: /Message/ }) as HTMLTextAreaElement | null, 'the composer')
  return { composer, id }
}

function type(composer: HTMLTextAreaElement, text: string, keys: { ctrlKey?: boolean } = {}): void {
  fireEvent.change(composer, { target: { value: text } })
  fireEvent.keyDown(composer, { key: 'Enter', ...keys })
}

const dock = (): HTMLElement | null => screen.queryByRole('region', { name: 'Queue' })
const dockTexts = (): string[] => within(dock()!).queryAllByRole('listitem').map((item) => item.getAttribute('aria-label')!.replace(/^Queued message \d+: /, ''))

describe('the page against a real host', () => {
  it('Enter sends; the turn streams into the timeline and ends completed', async () => {
    const { composer } = await openPage()
    // As main.tsx does: the list follows the host stream (the header's first prompt comes from it).
    store!.getState().followSessions()
    type(composer, 'hello there')
    const turn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), 'turn 1')
    await until(() => within(turn).queryByText('echo: hello there'), 'the echoed answer')
    await until(() => within(screen.getByRole('article', { name: 'Turn 1' })).getByTestId('turn-reason').textContent === 'completed', 'completed')
    expect(within(screen.getByRole('article', { name: 'Turn 1' })).getByText('hello there')).toBeTruthy()
    const header = screen.getByRole('heading', { level: 1 }).closest('header')!
    await until(() => header.querySelector('time')?.getAttribute('datetime') === new Date(store!.getState().view.events.at(-1)!.time).toISOString(), 'last activity in the header')
    // The first prompt beside the id, from the session list's row.
    await until(() => within(header).queryByTitle('hello there'), 'the first prompt in the header')
  })

  it('queues follow-ups while running: edit, keyboard reorder, remove; Stop keeps the queue paused and Resume runs it', async () => {
    const { composer, id } = await openPage(() => [slow(4000)])
    type(composer, 'one')
    await until(() => store!.getState().view.status === 'running', 'running')
    type(composer, 'two')
    type(composer, 'three')
    await until(() => dock() !== null && dockTexts().length === 2, 'two queued')
    expect(dockTexts()).toEqual(['two', 'three'])

    fireEvent.click(within(dock()!).getByRole('button', { name: 'Edit: two' }))
    const editor = within(dock()!).getByRole('textbox', { name: 'Edit queued message' })
    fireEvent.change(editor, { target: { value: 'two, edited' } })
    fireEvent.keyDown(editor, { key: 'Enter' })
    await until(() => dockTexts()[0] === 'two, edited', 'the edit')

    fireEvent.keyDown(within(dock()!).getAllByRole('listitem')[0]!, { key: 'ArrowDown', altKey: true })
    await until(() => dockTexts().join() === 'three,two, edited', 'the reorder')
    const inbox = (await harness!.client.getSession(id)).inbox['next-turn']
    expect(inbox.map((message) => (message.content[0] as { text: string }).text)).toEqual(['three', 'two, edited'])

    fireEvent.click(within(dock()!).getByRole('button', { name: 'Remove: three' }))
    await until(() => dockTexts().join() === 'two, edited', 'the removal')

    fireEvent.click(screen.getByRole('button', { name: 'Stop' }))
    await until(() => screen.queryByText('Queue paused'), 'queue paused')
    expect(dockTexts()).toEqual(['two, edited'])
    expect(within(screen.getByRole('article', { name: 'Turn 1' })).getByTestId('turn-reason').textContent).toBe('aborted')

    // No turn runs now: a promote cannot steer anything, so the message stays queued and the page says so.
    fireEvent.click(within(dock()!).getByRole('button', { name: 'Promote to steer: two, edited' }))
    await until(() => screen.queryByText(/Kept queued/), 'the kept-queued notice')
    expect(dockTexts()).toEqual(['two, edited'])

    fireEvent.click(screen.getByRole('button', { name: 'Resume' }))
    const second = await until(() => screen.queryByRole('article', { name: 'Turn 2' }), 'turn 2')
    await until(() => within(second).queryByText('echo: two, edited'), 'the resumed follow-up')
    expect(dock()).toBeNull()
    expect(screen.queryByText('Queue paused')).toBeNull()
  }, 90_000)

  it('input queued with nothing to run it (an inject; a recovered settlement) says so, and Run now runs it', async () => {
    // Found walking the web UI after a host crash: a subagent's settlement, parked in its parent by
    // recovery (seed 003: resuming runs nothing), sat in the dock with no word and no way to run it.
    const { id } = await openPage()
    await harness!.client.send(id, { content: 'parked', delivery: 'inject' })
    // Live, in the page already open: the host says idle again after a splice nothing will start.
    await until(() => screen.queryByText('Queued, not running'), 'the waiting notice, live')
    expect(store!.getState().view.queues['next-step'].length).toBe(1)
    // Opened again (a reload, another tab): the hello says idle after the splice — the same notice.
    store!.getState().dispose()
    cleanup()
    store = createAppStore({ client: harness!.client })
    render(
      <StoreProvider store={store}>
        <App />
      </StoreProvider>,
    )
    store.getState().select(id)
    await until(() => screen.queryByText('Queued, not running'), 'the waiting notice')
    expect(screen.queryByText('Queue paused')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Run now' }))
    const turn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), 'turn 1')
    await until(() => within(turn).queryByText('echo: parked'), 'the parked message answered')
    await until(() => screen.queryByText('Queued, not running') === null, 'the notice gone')
  }, 90_000)

  it("a turn a plugin's hook failed parks the queue: the header says Queue paused, and Resume runs what waits", async () => {
    // A pre-step check whose service is down: it fails turn 1 once a follow-up is queued behind it.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const flaky = definePlugin({
      name: 'flaky-check',
      setup({ hooks }) {
        hooks.preStep.tapPromise('flaky-check', async (decision, { turn }) => {
          if (turn !== 1) return decision
          await released
          throw new Error('auth service down')
        })
      },
    })
    const { composer } = await openPage(() => [], [flaky])
    type(composer, 'one')
    await until(() => store!.getState().view.status === 'running', 'turn 1 running')
    type(composer, 'two')
    await until(() => dock() !== null && dockTexts().join() === 'two', 'two queued')
    release()
    const turn = screen.getByRole('article', { name: 'Turn 1' })
    await until(() => within(turn).getByTestId('turn-reason').textContent === 'error: PLUGIN_HOOK_FAILED', 'turn 1 failed')
    // The core parks the queue after such an end (no turn runs until a wake): the page says so.
    await until(() => screen.queryByText('Queue paused'), 'queue paused')
    expect(dockTexts()).toEqual(['two'])
    fireEvent.click(screen.getByRole('button', { name: 'Resume' }))
    const second = await until(() => screen.queryByRole('article', { name: 'Turn 2' }), 'turn 2')
    await until(() => within(second).queryByText('echo: two'), 'the parked follow-up answered')
    await until(() => screen.queryByText('Queue paused') === null, 'the paused notice gone')
  })

  it('a long answer streams into its last lines only: what was drawn before is not redrawn, and the paragraph holds the answer', async () => {
    // Redrawing the whole answer for every chunk had the browser lay it all out each time (~10 s of a 290,000-character stream).
    const answer = 'The bosun checks every line and block before the ship leaves harbour.\n'.repeat(120)
    const { composer } = await openPage(() => [{ text: answer, chunkSize: 200, delayMs: 5 }])
    type(composer, 'at length')
    const turn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), 'turn 1')
    const paragraph = await until(() => {
      const found = within(turn).queryByTestId('assistant-text')
      return found !== null && found.textContent!.length > PIECE_CHARACTERS + 200 ? found : null
    }, 'more than a piece streamed')
    // The node that holds the answer's first lines: never changed again while the rest streams in.
    const first = paragraph.firstChild!
    const drawn = first.textContent
    const changed: MutationRecord[] = []
    const observer = new MutationObserver((records) => changed.push(...records.filter((record) => first === record.target || first.contains(record.target))))
    observer.observe(paragraph, { subtree: true, childList: true, characterData: true })
    await until(() => within(screen.getByRole('article', { name: 'Turn 1' })).getByTestId('turn-reason').textContent === 'completed', 'completed')
    observer.disconnect()
    expect(changed).toEqual([])
    expect(first.isConnected && first.textContent).toBe(drawn)
    expect(within(screen.getByRole('article', { name: 'Turn 1' })).getByTestId('assistant-text').textContent).toBe(answer)
  })

  it('Ctrl+Enter steers and Promote turns a queued follow-up into steering: drawn pending at the tail, then in the step they entered', async () => {
    const { composer } = await openPage(() => [slow(400)])
    type(composer, 'start')
    await until(() => store!.getState().view.items.length === 1 && store!.getState().view.status === 'running', 'running')
    type(composer, 'steer me', { ctrlKey: true })
    type(composer, 'promote me')
    await until(() => dock() !== null && dockTexts().join() === 'promote me', 'queued')
    fireEvent.click(within(dock()!).getByRole('button', { name: 'Promote to steer: promote me' }))
    await until(() => dock() === null, 'the dock empties')
    const pending = await until(() => screen.queryByRole('region', { name: 'Pending steering' }), 'pending steering')
    await until(() => within(pending).queryByText('promote me'), 'the promoted message pending')
    expect(within(pending).getByText('steer me')).toBeTruthy()
    await until(() => within(screen.getByRole('article', { name: 'Turn 1' })).queryByRole('region', { name: 'Step 2' }), 'step 2', 60_000)
    await until(() => screen.queryByRole('region', { name: 'Pending steering' }) === null, 'pending cleared')
    const step2 = within(screen.getByRole('article', { name: 'Turn 1' })).getByRole('region', { name: 'Step 2' })
    expect(within(step2).getByText('steer me')).toBeTruthy()
    expect(within(step2).getByText('promote me')).toBeTruthy()
    expect(within(step2).getAllByText('steer entered here')).toHaveLength(2)
  }, 90_000)

  it('a pre-step reject names its plugin and shows its metadata', async () => {
    const { composer } = await openPage()
    type(composer, 'this is forbidden')
    const reject = await until(() => screen.queryByRole('region', { name: 'Rejected by content-filter' }), 'the reject row')
    expect(within(reject).getByText('“this is forbidden”')).toBeTruthy()
    const metadata = JSON.parse(within(reject).getByLabelText('Reject metadata').textContent!) as Record<string, unknown>
    expect(metadata).toMatchObject({ rule: 'secret', excerpt: 'forbidden' })
    await until(() => within(screen.getByRole('article', { name: 'Turn 1' })).getByTestId('turn-reason').textContent === 'blocked by content-filter', 'blocked')
  })
})

describe('ToolCard', () => {
  it('cuts long arguments (a file written whole) as it cuts results, and shows all of them on request', () => {
    const args = JSON.stringify({ path: 'notes.md', content: 'The bosun checks every line.\n'.repeat(100) })
    render(<ToolCard card={{ index: 0, callId: 'c1', name: 'write_file', args, status: 'streaming', result: null }} />)
    expect(screen.getByLabelText('Arguments').textContent).toBe(`${args.slice(0, RESULT_PREVIEW)}…`)
    act(() => fireEvent.click(screen.getByRole('button', { name: `Show all arguments (${args.length} characters)` })))
    expect(screen.getByLabelText('Arguments').textContent).toBe(args)
    act(() => fireEvent.click(screen.getByRole('button', { name: 'Show less' })))
    expect(screen.getByLabelText('Arguments').textContent).toHaveLength(RESULT_PREVIEW + 1)
  })

  it('cuts a long result and shows all of it on request', () => {
    const result = 'r'.repeat(RESULT_PREVIEW * 2)
    render(<ToolCard card={{ index: 0, callId: 'c1', name: 'read', args: '{"path":"a.txt"}', status: 'done', result }} />)
    expect(screen.getByLabelText('Result').textContent).toHaveLength(RESULT_PREVIEW + 1)
    act(() => fireEvent.click(screen.getByRole('button', { name: /Show all/ })))
    expect(screen.getByLabelText('Result').textContent).toBe(result)
    expect(screen.getByTestId('tool-status').textContent).toBe('done')
  })
})

describe('SessionList', () => {
  it('draws subagent sessions under the session that delegated to them, with status and queue counts, and filters by search', async () => {
    harness = startHost()
    store = createAppStore({ client: harness.client })
    const item = (id: string, extra: object = {}) => ({ id, createdAt: 1, loaded: true, status: 'idle', lastSeq: 10, lastEventAt: null, queue: { 'next-turn': 0, 'next-step': 0 }, ...extra })
    store.setState({ sessions: [item('captain', { status: 'running', queue: { 'next-turn': 2, 'next-step': 1 } }), item('scout', { parentSessionId: 'captain' }), item('lone', { loaded: false })] })
    render(
      <StoreProvider store={store}>
        <SessionList />
      </StoreProvider>,
    )
    const children = screen.getByRole('list', { name: 'Children of captain' })
    expect(within(children).getByText('scout')).toBeTruthy()
    const captain = screen.getByRole('button', { name: /^captain/ })
    expect(captain.textContent).toContain('running')
    // The follow-ups (what the dock lists) apart from the pending steer: one sum said "3 queued" beside a dock of 2.
    expect(captain.textContent).toContain('2 queued')
    expect(captain.textContent).toContain('1 steer pending')
    expect(screen.getByRole('button', { name: /^lone/ }).textContent).toContain('cold')
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search sessions' }), { target: { value: 'lon' } })
    expect(screen.queryByText('captain')).toBeNull()
    expect(screen.getByText('lone')).toBeTruthy()
  })
})
