// The web UI end to end: real Chromium (Debian's package, playwright-core) against the built
// `bosun serve` as a child process. Needs `pnpm build` (the CLI and the UI's dist/app). Without
// Chromium outside CI these tests are not registered and one line says how to enable them; in CI
// (CI=true) a missing browser fails (no-browser.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasChromium, launch, serve, slowAnswer, workspace, type Serve, type Workspace } from './harness.js'
import { keyboardFlow } from './keyboard-flow.js'
import { measureColdSession } from './perf-flow.js'
import { queueFlow } from './queue-flow.js'
import { restartFlow } from './restart-flow.js'

const quick = (text: string) => ({ text, chunkSize: 5, delayMs: 10 })

if (hasChromium) {
  describe('the web UI in Chromium', () => {
    let work: Workspace
    let server: Serve
    let browser: Awaited<ReturnType<typeof launch>>
    beforeAll(async () => {
      // Every session's first answer streams for about a minute (the flows stop it); later ones are quick.
      work = await workspace([slowAnswer(6000), quick('The second follow-up, answered.'), quick('The edited follow-up, answered.'), quick('And the next.')])
      server = await serve(work.dir)
      browser = await launch()
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      await server?.stop()
      await work?.cleanup()
    }, 60_000)

    it('queue while running, edit, drag-reorder, promote, Stop keeps the queue paused, Resume, reject with metadata, fork — with no axe-core violations', async () => {
      await queueFlow(browser.context, server.url)
    }, 180_000)

    it('works from the keyboard alone, focus visible', async () => {
      await keyboardFlow(browser.context, server.url)
    }, 180_000)

    it('survives the server being killed mid-turn and restarted: the banner counts retries, then every tab draws what the log holds, nothing doubled or missing', async () => {
      const restartWork = await workspace([slowAnswer(1200), quick('unused')])
      try {
        await restartFlow(browser.context, restartWork.dir)
      } finally {
        await restartWork.cleanup()
      }
    }, 240_000)

    // BOSUN_WEB_COMPARE=<another tree>/packages/cli/dist/bin.js measures that build too, in
    // interleaved rounds (BOSUN_WEB_ROUNDS, 3 by default): how docs/benchmarks.md compares builds.
    const compare = process.env.BOSUN_WEB_COMPARE
    const rounds = compare === undefined ? 1 : Number(process.env.BOSUN_WEB_ROUNDS ?? 3)
    it('opens a 5,000-turn session and scrolls it (virtualised; times reported in docs/benchmarks.md, not asserted)', async () => {
      for (let round = 1; round <= rounds; round += 1) {
        if (compare !== undefined) await measureColdSession(browser.context, 5000, `${compare}, round ${round}`, compare)
        const report = await measureColdSession(browser.context, 5000, compare === undefined ? 'this build' : `this build, round ${round}`)
        expect(report.events).toBe(40_000)
      }
    }, 240_000 * rounds * (compare === undefined ? 1 : 2))
  })
}
