// The web UI in Chromium against a host whose stream slots are all taken (`limits.streams`): the
// page's session stream is refused `503 too-many-streams`, the banner says so and how long the
// host asked to wait, counting down to the next attempt, and once another client lets its stream
// go the page retries by itself, goes live from the last event shown and draws new events —
// nothing doubled. The host runs in this process (createHost + listen over the built UI in
// packages/web/dist/app), since `bosun serve` has no flag for the limit. Needs
// `pnpm --filter @bosun/web build`; without Chromium outside CI it is not registered
// (no-browser.test.ts says how to enable it). Then the same with the host's per-client bound
// (`limits.streamsPerClient`): the page is refused `429 too-many-client-streams`, and the banner
// says what to do.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, memoryStore } from '@bosun/core'
import { scripted } from '../../packages/adapters/scripted/src/index.js'
import { createClient } from '../../packages/host/src/client.js'
import { createHost, listen, type Host, type RunningServer } from '../../packages/host/src/index.js'
import { hasChromium, launch, screenshot, until } from './harness.js'
import { lastSeq, turn, waitForReason } from './page.js'

const webRoot = fileURLToPath(new URL('../../packages/web/dist/app/', import.meta.url))

/** A host over the built UI with `limits` (listen() on 127.0.0.1) and Chromium, for the tests of a describe. */
function hostAndBrowser(limits: { streams?: number; streamsPerClient?: number }): { host: Host; server: RunningServer; browser: Awaited<ReturnType<typeof launch>> } {
  const setup = {} as { host: Host; server: RunningServer; browser: Awaited<ReturnType<typeof launch>> }
  beforeAll(async () => {
    if (!existsSync(webRoot)) throw new Error(`The web UI is not built at ${webRoot}: run pnpm --filter @bosun/web build first.`)
    setup.host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted(), store, sessionId }), limits, webRoot })
    setup.server = await listen(setup.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    setup.browser = await launch()
  }, 60_000)
  afterAll(async () => {
    await setup.browser?.close()
    await setup.server?.close()
  }, 60_000)
  return setup
}

if (hasChromium) {
  describe('the web UI when the host refuses its stream (503 too-many-streams), in Chromium', () => {
    // Three slots: the page's session list (GET /v1/stream), and two this test holds.
    const setup = hostAndBrowser({ streams: 3 })

    it('says why and how long, retries by itself once a slot is free, goes live from the last event shown', async () => {
      const { host, server, browser } = setup
      const client = createClient({ baseUrl: server.url })
      await client.createSession('busy')
      await client.send('busy', { content: 'first', clientMessageId: 'm1' }, { waitDurable: true })
      await until(async () => (await client.getSession('busy')).status === 'idle', 'the first turn ended')

      const page = await browser.context.newPage()
      const holders: AbortController[] = []
      try {
        await page.goto(server.url)
        const list = page.getByRole('list', { name: 'Session list' })
        await until(async () => (await list.getByRole('button', { name: /^busy/ }).count()) === 1, 'the session list')
        await until(() => host.openStreams === 1, 'the page’s list stream open')
        // Another client takes the two slots left.
        for (let index = 0; index < 2; index++) {
          const holder = new AbortController()
          holders.push(holder)
          const held = await fetch(`${server.url}/v1/stream`, { signal: holder.signal })
          expect(held.status).toBe(200)
        }
        expect(host.openStreams).toBe(3)

        await list.getByRole('button', { name: /^busy/ }).click()
        const refused = page.getByRole('status').filter({ hasText: 'The host is serving as many streams as it allows — reconnecting (attempt 1) after the 5 s it asked for: next attempt in' })
        await until(async () => (await refused.count()) === 1, 'the banner saying why')
        await screenshot(page, 'stream-refused')
        // It counts down to the next attempt: a second later it says one second less.
        const countdown = async () => Number(/next attempt in (\d+) s/.exec((await page.getByRole('status').filter({ hasText: 'reconnecting' }).textContent().catch(() => '')) ?? '')?.[1] ?? 0)
        const first = await until(countdown, 'a countdown')
        await until(async () => { const now = await countdown(); return now > 0 && now < first }, `the countdown below ${first} s`)

        holders[0]!.abort() // one of the other client's streams ends: a slot is free
        await waitForReason(page, 1, 'completed')
        await until(async () => (await page.getByText(/reconnecting/).count()) === 0, 'the banner gone')
        await until(async () => (await lastSeq(page)) === (await client.events('busy')).lastSeq, 'the log drawn to its end')

        await client.send('busy', { content: 'second', clientMessageId: 'm2' })
        await waitForReason(page, 2, 'completed')
        expect(await turn(page, 2).getByText('echo: second').count()).toBe(1)
        await until(async () => (await lastSeq(page)) === (await client.events('busy')).lastSeq, 'the new turn drawn to its end')
        expect(await turn(page, 1).count()).toBe(1)
        expect(await turn(page, 1).getByText('echo: first').count()).toBe(1)
        expect(await page.getByRole('article', { name: 'Turn 3', exact: true }).count()).toBe(0)
      } catch (error) {
        await screenshot(page, 'failure-stream-limit')
        throw error
      } finally {
        for (const holder of holders) holder.abort()
        await page.close().catch(() => {})
      }
    }, 120_000)
  })

  describe('the web UI when its address holds limits.streamsPerClient streams (429 too-many-client-streams), in Chromium', () => {
    // Two per client: the page's session list, and one this test holds from the same address (127.0.0.1).
    const setup = hostAndBrowser({ streamsPerClient: 2 })

    it('says what happened and what to do, and goes live once a stream of the address ends', async () => {
      const { host, server, browser } = setup
      const client = createClient({ baseUrl: server.url })
      await client.createSession('tabs')
      const page = await browser.context.newPage()
      const holder = new AbortController()
      try {
        await page.goto(server.url)
        const list = page.getByRole('list', { name: 'Session list' })
        await until(async () => (await list.getByRole('button', { name: /^tabs/ }).count()) === 1, 'the session list')
        await until(() => host.openStreams === 1, 'the page’s list stream open')
        expect((await fetch(`${server.url}/v1/stream`, { signal: holder.signal })).status).toBe(200)

        await list.getByRole('button', { name: /^tabs/ }).click()
        const refused = page.getByRole('status').filter({ hasText: 'The host is serving as many streams as it allows one address (this browser\'s other tabs count, and anything else connecting from this address) — reconnecting (attempt 1) after the 5 s it asked for: next attempt in' })
        await until(async () => (await refused.count()) === 1, 'the banner saying why')
        expect(await refused.textContent()).toMatch(/next attempt in [1-6] s\. Close other tabs open on this host, or ask its operator to raise limits\.streamsPerClient\. Nothing is lost/)
        await screenshot(page, 'stream-refused-per-client')

        holder.abort() // the address's other stream ends: the page's next attempt is served
        await until(async () => (await page.getByText(/reconnecting/).count()) === 0, 'the banner gone')
        await until(() => host.openStreams === 2, 'the page’s session stream open')
      } catch (error) {
        await screenshot(page, 'failure-stream-limit-per-client')
        throw error
      } finally {
        holder.abort()
        await page.close().catch(() => {})
      }
    }, 120_000)
  })
}
