/**
 * The server is killed (SIGKILL) mid-turn and started again on the same port: the open tab shows
 * the reconnect banner with its attempt count (and the session list that it is not live),
 * resumes, and ends up drawing exactly what a fresh tab draws from the log — nothing doubled,
 * nothing missing — and so does a second tab that watched the whole time.
 */
import { expect } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { screenshot, serve, until, type Serve } from './harness.js'
import { conversationText, dockTexts, lastSeq, send, turn, waitForReason } from './page.js'

export async function restartFlow(context: BrowserContext, dir: string): Promise<void> {
  let server: Serve = await serve(dir)
  const pages: Page[] = []
  try {
    const a = await context.newPage()
    pages.push(a)
    await a.goto(server.url)
    await a.getByRole('button', { name: 'New session' }).click()
    await until(async () => /#\/s\/.+/.test(a.url()), 'the new session selected')
    const id = decodeURIComponent(/#\/s\/(.+)$/.exec(a.url())![1]!)
    await send(a, 'A long answer, please.')
    await until(async () => ((await turn(a, 1).getByTestId('assistant-text').first().textContent().catch(() => '')) ?? '').length > 30, 'text streaming in')

    const b = await context.newPage()
    pages.push(b)
    await b.goto(`${server.url}#/s/${encodeURIComponent(id)}`)
    await waitForReason(b, 1, 'running')
    await send(a, 'after the restart')
    await until(async () => (await dockTexts(b)).join() === 'after the restart', 'the second tab sees the queue')

    await server.kill()
    await until(async () => (await a.getByText(/Connection lost — reconnecting \(attempt \d+\)/).count()) === 1, 'the reconnect banner')
    await until(async () => Number(/attempt (\d+)/.exec((await a.getByText(/Connection lost — reconnecting \(attempt/).textContent()) ?? '')?.[1] ?? 0) >= 2, 'a retry counted', 30_000)
    // The session list's host stream dropped too: the list says it is not live.
    await until(async () => (await a.getByRole('navigation', { name: 'Sessions' }).getByRole('status').filter({ hasText: /^List not live — reconnecting \(attempt \d+\): connection lost\.$/ }).count()) === 1, 'the list notice')
    await screenshot(a, 'reconnect')

    // The tabs reconnect to the address they loaded, so the host comes back on the port the first
    // one bound. It was free only since the kill: another process taking it in between would make
    // this start fail with LISTEN_FAILED (the port in use), not pass wrongly.
    server = await serve(dir, { port: Number(new URL(server.url).port) })
    // Recovery closes the killed turn `interrupted` and wakes the session, so the queued follow-up runs.
    for (const page of [a, b]) {
      await waitForReason(page, 1, 'interrupted')
      await waitForReason(page, 2, 'completed', 90_000)
    }
    await until(async () => (await a.getByText(/reconnecting/).count()) === 0, 'the banner and the list notice gone')

    const snapshot = (await (await fetch(`${server.url}/v1/sessions/${encodeURIComponent(id)}`)).json()) as { lastSeq: number }
    const fresh = await context.newPage()
    pages.push(fresh)
    await fresh.goto(`${server.url}#/s/${encodeURIComponent(id)}`)
    await waitForReason(fresh, 2, 'completed')
    for (const page of [a, b, fresh]) {
      await until(async () => (await lastSeq(page)) === snapshot.lastSeq, 'every tab at the log’s last seq')
      expect(await page.getByRole('article', { name: 'Turn 1', exact: true }).count()).toBe(1)
      expect(await page.getByRole('article', { name: 'Turn 2', exact: true }).count()).toBe(1)
      expect(await page.getByRole('article', { name: 'Turn 3', exact: true }).count()).toBe(0)
    }
    const drawn = await conversationText(fresh)
    expect(await conversationText(a)).toBe(drawn)
    expect(await conversationText(b)).toBe(drawn)
    expect(drawn).toContain('after the restart')
  } catch (error) {
    if (pages[0] !== undefined) await screenshot(pages[0], 'failure-restart-flow')
    throw error
  } finally {
    for (const page of pages) await page.close().catch(() => {})
    await server.stop()
  }
}
