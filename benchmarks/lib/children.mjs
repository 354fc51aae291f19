// Child processes, interleaved rounds and the statistics every figure shares. Each measurement runs
// in its own child (`node <script> '<json>'`, one JSON line on stdout). Rounds are interleaved
// (round 1 runs every cell once, then round 2, …) so that a slow phase of the machine hits every
// contender alike; cells report the median over rounds and the min–max of the round values.
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isSlow } from './plan.mjs'

export const here = join(dirname(fileURLToPath(import.meta.url)), '..')

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
/** Median and min–max of per-round values. */
export const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) })

/**
 * Runs one child and resolves with its JSON line plus `childMs`, or { ok: false, reason } — never
 * rejects. A child stopped by the time limit or out of heap is described from its last
 * `BENCH_PROGRESS` line on stderr (lib/progress.mjs), so that the table can say where it stopped.
 */
export function runChild(script, c, params, { nodeArgs = [], timeoutMs = 300_000 } = {}) {
  const config = JSON.stringify({ contender: c.contender, variant: c.variant, ...params })
  const started = Date.now()
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs, join(here, script), config], { cwd: here, timeout: timeoutMs, maxBuffer: 1 << 26 }, (error, stdout, stderr) => {
      const childMs = Date.now() - started
      if (error) { resolve({ ok: false, reason: failure(error, String(stderr), childMs, timeoutMs), childMs }); return }
      try { resolve({ ...JSON.parse(stdout.trim().split('\n').pop()), childMs }) } catch { resolve({ ok: false, reason: `child printed no result (${stdout.slice(-200)})`, childMs }) }
    })
  })
}

const n = (x) => x.toLocaleString('en')
/** A failed child's reason: stopped by the time limit, out of heap, or failed — with the phase it had reached. */
export function failure(error, stderr, childMs, timeoutMs) {
  const line = stderr.split('\n').filter((l) => l.startsWith('BENCH_PROGRESS ')).pop()
  const p = line ? JSON.parse(line.slice('BENCH_PROGRESS '.length)) : undefined
  const at = p ? ` while ${p.phase} (last reading at ${p.s} s: heapUsed ${n(p.heapMiB)} MiB, heap limit ${n(p.heapLimitMiB)} MiB)` : ''
  if (error.killed) return `stopped at the ${n(timeoutMs / 1000)} s time limit${at}`
  if (/heap out of memory/i.test(stderr)) return `ran out of heap after ${n(Math.round(childMs / 1000))} s${at}`
  return `child failed: ${String(error.message).split('\n')[0]}${at}`
}

/**
 * Runs `cells` ({ key, label?, run, once? }) in `rounds` interleaved rounds; a `once` cell runs in
 * the first round only (lib/plan.mjs says which: the cells whose cost dwarfs their spread). A cell
 * whose child fails is not run again. Returns, per key, { results: [child results, one per round] }
 * or { reason }.
 */
export async function interleave(cells, rounds, log) {
  const out = Object.fromEntries(cells.map((cell) => [cell.key, { results: [] }]))
  for (let r = 1; r <= rounds; r++) {
    for (const cell of cells) {
      const acc = out[cell.key]
      if (acc.reason || (cell.once && r > 1)) continue
      if (cell.label) log?.(`${cell.label}${rounds > 1 && !cell.once ? ` (round ${r}/${rounds})` : ''}`)
      const result = await cell.run()
      if (result.ok) acc.results.push(result)
      else { acc.reason = result.reason; delete acc.results }
    }
  }
  return out
}

/**
 * Figures 1–3: one configuration, every contender in child.mjs, interleaved rounds. Per contender:
 * the median over rounds of each round's median wall time per turn, the min–max of those round
 * medians, the median of the rounds' mean CPU per turn. Slow contenders use `p.slow` samples.
 */
export async function measureTurns(contenders, p, rounds) {
  const cells = contenders.map((c) => {
    const { samples, warmup } = isSlow(c) && p.slow ? p.slow : p
    const params = { prior: p.prior, chunks: p.chunks ?? 10, chunkSize: p.chunkSize ?? 10, pace: p.pace, samples, warmup }
    return { key: c.id, once: isSlow(c), run: () => runChild('child.mjs', c, params) }
  })
  const raw = await interleave(cells, rounds)
  const out = {}
  for (const c of contenders) {
    const { results, reason } = raw[c.id]
    if (reason) { out[c.id] = { reason }; continue }
    const wall = results.map((r) => median(r.wallMs))
    out[c.id] = {
      wall: median(wall), wallMin: Math.min(...wall), wallMax: Math.max(...wall), cpu: median(results.map((r) => mean(r.cpuMs))),
      prior: results[0].priorMessages, samples: results[0].wallMs.length, childS: results.map((r) => Math.round(r.childMs / 100) / 10),
    }
  }
  return out
}
