// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent, type Store } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient, type HostClient } from '@bosun/host/client'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { App } from '../app/components/App.js'
import { StoreProvider } from '../app/components/store-context.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'

// happy-dom has no layout: give elements a viewport-sized box so the virtualised timeline renders rows.
Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 800 })
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 1000 })

/** One `bosun serve` process: a host over a JSONL store (whose streams read a session without opening it). */
interface Served { host: Host; sessions: Store }

let dir: string | undefined
let served: Served | undefined
let page: AppStore | undefined
afterEach(async () => {
  page?.getState().dispose()
  cleanup()
  await served?.host.close()
  // After the host: a JSONL store keeps its journal file open until it is closed.
  await served?.sessions.close()
  served = undefined
  page = undefined
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

function serve(folder: string, responses: () => ScriptedResponse[]): Served {
  const sessions = jsonlStore({ dir: folder })
  const host = createHost({
    store: sessions,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: responses() }), store, sessionId }),
    limits: { keepAliveMs: 200 },
  })
  return { host, sessions }
}

/** Session `s` open in the page, its turn 1 streaming slowly on the first host (`answer`: still running when the host stops, unless the stop's grace lets it end). */
async function runningOnFirstHost(answer: ScriptedResponse = { text: 'a'.repeat(4000), chunkSize: 1, delayMs: 10 }): Promise<HostClient> {
  dir = await mkdtemp(join(tmpdir(), 'bosun-web-shutdown-'))
  served = serve(dir, () => [answer])
  // The page reaches whichever host serves now, as a browser reaches `bosun serve` after a restart.
  const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => served!.host.fetch(new Request(input as string, init)) })
  page = createAppStore({ client })
  render(
    <StoreProvider store={page}>
      <App />
    </StoreProvider>,
  )
  await client.createSession('s')
  page.getState().select('s')
  await client.send('s', { content: 'one' })
  await until(() => page!.getState().view.status === 'running', 'turn 1 running')
  return client
}

/** bosun serve stopped (SIGTERM; no grace: a running turn ends aborted, reason `shutdown`) and started again on the same folder. */
async function restart(graceMs = 0): Promise<void> {
  await served!.host.close({ graceMs })
  await served!.sessions.close()
  served = serve(dir!, () => [])
}

describe('a turn a host shutdown aborted', () => {
  it('with input queued behind it, says the queue runs when the session resumes (not "Queue paused"), and it does', async () => {
    const client = await runningOnFirstHost()
    await client.send('s', { content: 'two' })
    await until(() => page!.getState().view.queues['next-turn'].length === 1, 'two queued')

    await restart()

    const notice = (): HTMLElement | null => screen.queryByText('Queue runs when the session resumes') ?? screen.queryByText('Queue paused') ?? screen.queryByText('Queued, not running')
    await until(notice, 'a word on the queue')
    // Not a user's Stop: nothing says the queue is paused, nor that nothing will run it.
    expect(notice()!.firstChild!.textContent).toBe('Queue runs when the session resumes')
    expect(within(screen.getByRole('article', { name: 'Turn 1' })).getByTestId('turn-reason').textContent).toBe('aborted: host shut down')
    // The stream read the log without opening the session: nothing ran yet.
    expect(page!.getState().view.status).toBe('idle')

    // What the notice says: resuming the session runs the queue (core's recovery owes it its turns).
    fireEvent.click(within(screen.getByText('Queue runs when the session resumes')).getByRole('button', { name: 'Run now' }))
    const second = await until(() => screen.queryByRole('article', { name: 'Turn 2' }), 'turn 2')
    await until(() => within(second).queryByText('echo: two'), 'the queued message answered')
    await until(() => screen.queryByText('Queue runs when the session resumes') === null, 'the notice gone')
  }, 90_000)

  it('input queued after that end is not owed a turn by it: an inject then says "Queued, not running"', async () => {
    const client = await runningOnFirstHost()
    // Stopped with nothing queued behind the turn.
    await restart()
    const turn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), 'turn 1')
    await until(() => within(turn).getByTestId('turn-reason').textContent === 'aborted: host shut down', 'turn 1 aborted by the shutdown')

    // The inject resumes the session on the new host, which owes it nothing (core: an inject waits for a wake).
    await client.send('s', { content: 'later', delivery: 'inject' })
    await until(() => screen.queryByText('Queued, not running'), 'the waiting notice')
    expect(screen.queryByText('Queue runs when the session resumes')).toBeNull()
    expect(screen.queryByText('Queue paused')).toBeNull()
  }, 90_000)

  it('a turn that ended completed in the stop\'s grace, input queued behind it: the queue runs when the session resumes (core owes it its turns), not "Queued, not running"', async () => {
    // Short enough to end in the grace: the host starts no other turn then, and "two" stays queued.
    const client = await runningOnFirstHost({ text: 'a'.repeat(40), chunkSize: 1, delayMs: 10 })
    await client.send('s', { content: 'two' })
    await until(() => page!.getState().view.queues['next-turn'].length === 1, 'two queued')

    await restart(60_000)

    const turn = await until(() => screen.queryByRole('article', { name: 'Turn 1' }), 'turn 1')
    await until(() => within(turn).getByTestId('turn-reason').textContent === 'completed', 'turn 1 completed')
    const notice = (): HTMLElement | null => screen.queryByText('Queue runs when the session resumes') ?? screen.queryByText('Queue paused') ?? screen.queryByText('Queued, not running')
    await until(notice, 'a word on the queue')
    expect(notice()!.firstChild!.textContent).toBe('Queue runs when the session resumes')
    expect(page!.getState().view.status).toBe('idle')
    expect(page!.getState().view.queues['next-turn']).toHaveLength(1)

    // Resumed by a message that wakes nothing (an inject): the new host's recovery runs the queue.
    await client.send('s', { content: 'three', delivery: 'inject' })
    const second = await until(() => screen.queryByRole('article', { name: 'Turn 2' }), 'turn 2')
    await until(() => within(second).queryByText('echo: two'), 'the queued message answered')
  }, 90_000)
})
