// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '@bosun/host'
import { createClient, type HostClient } from '@bosun/host/client'
import subagents from '@bosun/plugin-subagents'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'
import { routeByFirstMessage } from './subagent-route.js'

// happy-dom has no layout: give elements a viewport-sized box so the virtualised timeline renders rows.
Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })

/** Each conversation is scripted by its first message: the root waits for a foreground reviewer, then leaves a slow background researcher running. */
const script: Record<string, ScriptedResponse[]> = {
  plan: [
    { toolCalls: [{ name: 'spawn_agent', id: 's1', args: { task: 'check', agent: 'reviewer' } }] },
    { toolCalls: [{ name: 'spawn_agent', id: 's2', args: { task: 'dig', mode: 'background' } }] },
    { text: 'waiting' },
  ],
  check: [{ text: 'checked: all good\nsecond line' }],
  // A long answer, one character every 10 ms: running until the test interrupts it.
  dig: [{ text: 'd'.repeat(4000), chunkSize: 1, delayMs: 10 }],
}
const route = routeByFirstMessage(script, { text: 'done' })

let host: Host | undefined
let store: AppStore | undefined
let dir: string | undefined
let sessions: Store | undefined
afterEach(async () => {
  store?.getState().dispose()
  cleanup()
  await host?.close()
  host = undefined
  // After the host: a JSONL store keeps its journal file open until it is closed.
  await sessions?.close()
  sessions = undefined
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  dir = undefined
  store = undefined
})

async function start(): Promise<HostClient> {
  dir = await mkdtemp(join(tmpdir(), 'bosun-web-child-'))
  sessions = jsonlStore({ dir })
  host = createHost({
    store: sessions,
    agentFactory: ({ sessionId, store: sessions }) =>
      createAgent({ model: scripted({ responses: Array.from({ length: 100 }, () => route) }), store: sessions, sessionId, plugins: [[subagents, { agents: { reviewer: { system: 'You review.' } } }]] }),
    limits: { keepAliveMs: 200 },
  })
  const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host!.fetch(new Request(input as string, init)) })
  store = createAppStore({ client })
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  )
  return client
}

const card = (id: string): HTMLElement | null => screen.queryByRole('region', { name: `Child agent ${id}` })
const status = (id: string): string | null | undefined => card(id)?.querySelector('[data-testid="child-status"]')?.textContent

describe('ChildCard against a real host with subagents', () => {
  it('draws each child in the step that spawned it with status and answer; Interrupt stops the running child (it settles aborted); Open switches to it', async () => {
    const client = await start()
    await client.createSession('root')
    await client.send('root', { content: 'plan' })
    const spawned = async (): Promise<string[]> => (await client.events('root', { limit: 1000 })).events.filter((e) => e.type === 'subagent/spawned').map((e) => (e.data as { childId: string }).childId)
    const [reviewer, researcher] = await until(async () => ((await spawned()).length === 2 ? spawned() : null), 'two children spawned', 30_000)
    store!.getState().select('root')

    // The foreground reviewer answered inside step 1; the background researcher runs, drawn in step 2.
    const turn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), 'turn 1')
    const step1 = await until(() => within(turn).queryByRole('region', { name: 'Step 1' }), 'step 1')
    await until(() => within(step1).queryByRole('region', { name: `Child agent ${reviewer}` }), 'the reviewer card in step 1')
    await until(() => status(reviewer!) === 'settled: completed', 'the reviewer settled')
    const reviewerCard = card(reviewer!)!
    expect(reviewerCard.textContent).toContain('foreground')
    expect(reviewerCard.textContent).toContain('profile: reviewer')
    expect(within(reviewerCard).getByTestId('child-answer').textContent).toBe('checked: all good')
    const step2 = within(screen.getByRole('article', { name: 'Turn 1' })).getByRole('region', { name: 'Step 2' })
    await until(() => within(step2).queryByRole('region', { name: `Child agent ${researcher}` }), 'the researcher card in step 2')
    expect(status(researcher!)).toBe('running…')
    expect(card(researcher!)!.textContent).toContain('background')
    expect((within(reviewerCard).getByRole('button', { name: `Interrupt child ${reviewer}` }) as HTMLButtonElement).disabled).toBe(true)

    // Interrupt sends the host's cancel for the child's id. The child runs inside its parent's
    // agent; the host borrows that agent (it does not open the child again), so the child's turn
    // really ends aborted, and it settles into the parent as aborted — no error notice. (The card
    // says running from the spawn on; the child's session is made a moment later: wait for it.)
    await until(async () => ((await client.getSession(researcher!).catch(() => null))?.status === 'running' ? true : null), 'the researcher to run', 30_000)
    fireEvent.click(within(card(researcher!)!).getByRole('button', { name: `Interrupt child ${researcher}` }))
    await until(() => status(researcher!) === 'settled: aborted', 'the researcher settled as aborted')
    expect(screen.queryByRole('alert')).toBeNull()
    const childEnds = (await client.events(researcher!, { limit: 1000 })).events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)
    expect(childEnds).toEqual(['aborted'])
    const settled = (await client.events('root', { limit: 1000 })).events.filter((e) => e.type === 'subagent/settled').map((e) => e.data as { childId: string; reason: string })
    expect(settled.filter((d) => d.childId === researcher)).toMatchObject([{ reason: 'aborted' }])

    // Open: the page follows the child session, as the session list does.
    fireEvent.click(within(card(reviewer!)!).getByRole('button', { name: `Open child ${reviewer}` }))
    expect(store!.getState().selected).toBe(reviewer)
    const childTurn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), "the child's turn")
    await until(() => within(childTurn).queryByText(/checked: all good/), "the child's answer in its own timeline")
  }, 90_000)
})
