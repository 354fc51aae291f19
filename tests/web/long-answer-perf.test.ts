// A 290,000-character answer streamed into the page in ~1,900 chunks (docs/web.md, "A long answer
// is drawn in pieces"): the main thread's time while it streams, from Chromium's own counters
// (CDP Performance.getMetrics: TaskDuration, ScriptDuration, LayoutDuration), written to
// artifacts/long-answer.json. A measurement, never asserted; opt-in, as it streams for ~16 s:
//   npx -y pnpm@12.4.2 --filter @bosun/web build && BOSUN_WEB_LONG_ANSWER=1 npx vitest run tests/web/long-answer-perf.test.ts
// With BOSUN_WEB_LONG_ANSWER=profile it also writes the page's CPU profile of the stream
// (artifacts/long-answer.cpuprofile, for Chrome's DevTools).
import { writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { artifacts, hasChromium, servedWithSessions, until, type Served } from './harness.js'
import { send, turn, waitForReason } from './page.js'

const line = 'The bosun checks every line and block before the ship leaves harbour, then reports to the mate.\n'
const ANSWER = line.repeat(Math.ceil(290_000 / line.length)).slice(0, 290_000)
const CHUNK = 153

describe.runIf(hasChromium && (process.env.BOSUN_WEB_LONG_ANSWER === '1' || process.env.BOSUN_WEB_LONG_ANSWER === 'profile'))('a 290,000-character answer streaming in Chromium', () => {
  let served: Served | undefined
  beforeAll(async () => {
    served = await servedWithSessions([{ text: ANSWER, chunkSize: CHUNK, delayMs: 8 }], ['long'])
  }, 60_000)
  afterAll(async () => {
    await served?.close()
  }, 60_000)

  it('measures the main thread while it streams', async () => {
    const page = await served!.browser.context.newPage()
    try {
      const cdp = await served!.browser.context.newCDPSession(page)
      await cdp.send('Performance.enable')
      const metrics = async (): Promise<Record<string, number>> => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((metric) => [metric.name, metric.value]))
      await page.goto(`${served!.server.url}/#/s/long`)
      await send(page, 'at length')
      const text = turn(page, 1).getByTestId('assistant-text').first()
      await until(async () => ((await text.textContent().catch(() => '')) ?? '') !== '', 'the answer streaming')
      const profile = process.env.BOSUN_WEB_LONG_ANSWER === 'profile'
      if (profile) {
        await cdp.send('Profiler.enable')
        await cdp.send('Profiler.start')
      }
      const before = await metrics()
      await waitForReason(page, 1, 'completed', 120_000)
      const after = await metrics()
      if (profile) await writeFile(join(artifacts, 'long-answer.cpuprofile'), JSON.stringify((await cdp.send('Profiler.stop')).profile))
      expect((await text.textContent())!.length).toBe(ANSWER.length)
      const seconds = (name: string): number => Math.round((after[name]! - before[name]!) * 1000) / 1000
      const result = { characters: ANSWER.length, chunks: Math.ceil(ANSWER.length / CHUNK), streamedSeconds: seconds('Timestamp'), taskSeconds: seconds('TaskDuration'), scriptSeconds: seconds('ScriptDuration'), layoutSeconds: seconds('LayoutDuration'), styleSeconds: seconds('RecalcStyleDuration'), loadAverage: loadavg()[0] }
      console.log(`long answer: ${JSON.stringify(result)}`)
      await writeFile(join(artifacts, 'long-answer.json'), `${JSON.stringify(result, null, 2)}\n`)
    } finally {
      await page.close()
    }
  }, 180_000)
})
