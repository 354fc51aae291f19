/**
 * A 5,000-turn session in the browser: time to the first turn drawn and to the whole log folded
 * (from navigation start), then frame times while the timeline scrolls from the end to the top.
 * Measured and reported (tests/web/artifacts/perf.json, docs/benchmarks.md), never asserted.
 */
import { writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { BrowserContext } from 'playwright-core'
import { writeBigSession } from './big-session.js'
import { artifacts, screenshot, serve, until, workspace } from './harness.js'
import { lastSeq } from './page.js'

/**
 * Runs in the page before its scripts: notes when the session stream's response arrived (the
 * host's part), when the first turn is drawn and when the log's last seq is folded, and adds up
 * the main thread's long tasks (over 50 ms) until then (the page's part).
 */
const observe = (finalSeq: number): string => `
  window.__perf = { longTasks: 0 }
  const realFetch = window.fetch
  window.fetch = async (...args) => {
    const url = String(args[0] instanceof Request ? args[0].url : args[0])
    const stream = window.__perf.streamOpen === undefined && /\\/v1\\/sessions\\/[^/]+\\/stream/.test(url)
    if (stream) window.__perf.streamAsked = performance.now()
    const response = await realFetch(...args)
    if (stream) window.__perf.streamOpen = performance.now()
    return response
  }
  new PerformanceObserver((list) => {
    if (window.__perf.allFolded !== undefined) return
    for (const entry of list.getEntries()) window.__perf.longTasks += entry.duration
  }).observe({ type: 'longtask', buffered: true })
  new MutationObserver(() => {
    const log = document.querySelector('[role=log]')
    if (window.__perf.firstTurn === undefined && document.querySelector('article')) window.__perf.firstTurn = performance.now()
    if (window.__perf.allFolded === undefined && log && Number(log.getAttribute('data-last-seq')) === ${finalSeq}) window.__perf.allFolded = performance.now()
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-last-seq'] })
`

/** Scrolls the timeline up from the end, 600 px a frame for 300 frames (a fast wheel), and returns the frame intervals (ms). */
const SCROLL = `(async () => {
  const log = document.querySelector('[role=log]')
  const intervals = []
  let last = await new Promise((resolve) => requestAnimationFrame(resolve))
  for (let frame = 0; frame < 300 && log.scrollTop > 0; frame += 1) {
    log.scrollTop = Math.max(0, log.scrollTop - 600)
    const now = await new Promise((resolve) => requestAnimationFrame(resolve))
    intervals.push(now - last)
    last = now
  }
  return { intervals, rows: document.querySelectorAll('article').length }
})()`

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export interface PerfReport { turns: number; events: number; streamAskedMs: number; streamOpenMs: number; firstTurnMs: number; longTasksMs: number; allFoldedMs: number; frames: number; frameP50Ms: number; frameP95Ms: number; frameMaxMs: number; framesOver50Ms: number; rowsInDom: number }

/**
 * Writes a `turns`-turn session into a fresh folder, serves it with `cli` (this tree's build by
 * default) — so the session is cold, as after a restart — and measures it with {@link perfFlow}.
 */
export async function measureColdSession(context: BrowserContext, turns: number, label: string, cli?: string): Promise<PerfReport> {
  const work = await workspace([{ text: 'unused' }])
  try {
    const finalSeq = await writeBigSession(work.dir, 'long-voyage', turns)
    const server = await serve(work.dir, cli === undefined ? {} : { cli })
    try {
      return await perfFlow(context, server.url, 'long-voyage', turns, finalSeq, label)
    } finally {
      await server.stop()
    }
  } finally {
    await work.cleanup()
  }
}

export async function perfFlow(context: BrowserContext, url: string, id: string, turns: number, finalSeq: number, label = 'this build'): Promise<PerfReport> {
  const page = await context.newPage()
  try {
    await page.addInitScript(observe(finalSeq))
    await page.goto(`${url}#/s/${encodeURIComponent(id)}`)
    await until(async () => (await lastSeq(page)) === finalSeq, 'the whole session folded', 120_000)
    await until(async () => (await page.getByRole('article', { name: `Turn ${turns}`, exact: true }).count()) === 1, 'the last turn drawn')
    const marks = (await page.evaluate('window.__perf')) as { streamAsked: number; streamOpen: number; firstTurn: number; allFolded: number; longTasks: number }
    await screenshot(page, 'long-session')
    const scroll = (await page.evaluate(SCROLL)) as { intervals: number[]; rows: number }
    await until(async () => {
      // Home, as a reader would press it: the list must draw the first turn there.
      await page.getByRole('log', { name: 'Conversation' }).press('Home')
      return (await page.getByRole('article', { name: 'Turn 1', exact: true }).count()) === 1
    }, 'the first turn drawn after going to the top')
    // Virtualised: a few dozen rows in the DOM, not 5,000.
    expect(scroll.rows).toBeLessThan(100)
    const report: PerfReport = {
      turns,
      events: finalSeq + 1,
      streamAskedMs: Math.round(marks.streamAsked),
      streamOpenMs: Math.round(marks.streamOpen),
      firstTurnMs: Math.round(marks.firstTurn),
      longTasksMs: Math.round(marks.longTasks),
      allFoldedMs: Math.round(marks.allFolded),
      frames: scroll.intervals.length,
      frameP50Ms: Math.round(percentile(scroll.intervals, 50) * 10) / 10,
      frameP95Ms: Math.round(percentile(scroll.intervals, 95) * 10) / 10,
      frameMaxMs: Math.round(Math.max(...scroll.intervals) * 10) / 10,
      framesOver50Ms: scroll.intervals.filter((interval) => interval > 50).length,
      rowsInDom: scroll.rows,
    }
    await writeFile(join(artifacts, 'perf.json'), `${JSON.stringify(report, null, 2)}\n`)
    console.log(`web UI (${label}, load ${loadavg()[0]!.toFixed(1)}), ${turns}-turn session (${report.events} events): stream asked ${report.streamAskedMs} ms, answered ${report.streamOpenMs} ms, first turn drawn ${report.firstTurnMs} ms, whole log folded ${report.allFoldedMs} ms after navigation (long tasks until then: ${report.longTasksMs} ms); scrolling up 600 px a frame over ${report.frames} frames: p50 ${report.frameP50Ms} ms, p95 ${report.frameP95Ms} ms, max ${report.frameMaxMs} ms, ${report.framesOver50Ms} frames over 50 ms; ${report.rowsInDom} rows in the DOM`)
    return report
  } finally {
    await page.close()
  }
}
