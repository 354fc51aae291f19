import { scripted } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type Store } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient } from '@bosun/host/client'
import { afterEach, describe, expect, it } from 'vitest'
import { emptySession, foldEvents } from '../app/state/fold.js'
import { createAppStore, type AppStore } from '../app/state/store.js'
import { until } from './host-harness.js'

/** A store holding session "s" after the given follow-ups ran (each answered by echo), on the clock `now`. */
async function storeWith(prompts: string[], now: () => number = Date.now): Promise<Store> {
  const store = memoryStore()
  const agent = await createAgent({ model: scripted(), store, sessionId: 's', now })
  for (const prompt of prompts) {
    agent.followup(prompt)
    await agent.whenIdle()
  }
  await agent.close()
  return store
}

const hostOver = (store: Store): Host => createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), limits: { keepAliveMs: 200 } })

let app: AppStore | undefined
const hosts: Host[] = []
afterEach(async () => {
  app?.getState().dispose()
  for (const host of hosts.splice(0)) await host.close()
})

describe('the page after the host restarted', () => {
  // A clock that stands still: every event of both logs has the same time.
  const still = (): number => 1_764_000_000_000
  it.each([
    ['a shorter log', ['other one'], Date.now],
    ['a longer log whose events at the same seqs differ', ['other one', 'other two', 'other three', 'other four'], Date.now],
    // The same shape and clock: at the page's last seq both logs hold the same turn/end (seq,
    // type, time and data); only the messages before it differ, which the fingerprint sees.
    ['a log that agrees at the last seq drawn but differs before it', ['other', 'again!'], still],
  ])('reloads the session from the log when the host comes back with %s', async (_case, after, now) => {
    const before = hostOver(await storeWith(['first', 'second'], now))
    const restarted = hostOver(await storeWith(after, now))
    hosts.push(before, restarted)
    let target = before
    const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => target.fetch(new Request(input as string, init)) })
    app = createAppStore({ client })
    app.getState().select('s')
    const first = (await client.events('s')).lastSeq
    await until(() => app!.getState().view.lastSeq === first, 'the first log folded')

    target = restarted
    await before.close() // ends the stream: the client reconnects, now to the restarted host
    const log = await client.events('s', { limit: 1000 })
    const drawnOfLog = JSON.stringify(log.events.filter((event) => event.type !== 'assistant/chunk'))
    await until(() => JSON.stringify(app!.getState().view.events) === drawnOfLog, 'the restarted log folded')
    const view = app.getState().view
    // The page streams without the chunks of finished steps (their message carries the text).
    expect({ ...view, events: [], status: 'idle', statusSeq: 0 }).toEqual({ ...foldEvents(emptySession(), log.events), events: [], status: 'idle', statusSeq: 0 })
    expect(view.events.toArray().map((event) => event.seq)).toEqual(log.events.filter((event) => event.type !== 'assistant/chunk').map((event) => event.seq))
    expect(app.getState().notices.map((notice) => notice.text)).toEqual([expect.stringContaining('reloaded from its log')])
  })

  it('keeps its view when the host comes back with the same log (no reload)', async () => {
    const store = await storeWith(['first'])
    const before = hostOver(store)
    hosts.push(before)
    let target = before
    const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => target.fetch(new Request(input as string, init)) })
    app = createAppStore({ client })
    app.getState().select('s')
    const { lastSeq } = await client.events('s')
    await until(() => app!.getState().view.lastSeq === lastSeq, 'the log folded')
    const drawn = app.getState().view
    const again = hostOver(store)
    hosts.push(again)
    target = again
    await before.close()
    await client.send('s', { content: 'after' })
    await until(() => app!.getState().view.lastSeq > lastSeq + 3, 'new events folded on the same view')
    expect(app.getState().view.items.get(0)).toBe(drawn.items.get(0))
    expect(app.getState().notices).toEqual([])
  })
})

describe('a host that requires a token', () => {
  it('asks for the login form (auth "required") instead of an empty list or a notice', async () => {
    const host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), auth: { token: 'x'.repeat(40) } })
    hosts.push(host)
    app = createAppStore({ client: createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) }) })
    expect(app.getState().auth).toBe('unknown')
    app.getState().followSessions()
    await until(() => app!.getState().auth === 'required', 'the 401 noticed')
    await app.getState().refreshSessions()
    expect(app.getState().notices).toEqual([])
    expect(app.getState().sessions).toEqual([])
  })
})
