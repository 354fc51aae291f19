/**
 * What the host's after-a-seal benchmarks share (reconnect-after-seal.mjs, chat-after-seal.mjs):
 * the builds given on the command line, a 50,000-event session, the event loop's longest gap while
 * a request runs, and rounds that alternate the builds' order, summed up as median (min–max).
 */
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bigSessionEvents } from '../../../tests/web/big-session-events.mjs'

/** `[rounds=5] [hostDist=packages/host/dist ...]`: each dist's `createHost`. */
export async function buildsFromArgs(argv = process.argv) {
  const rounds = Number(argv[2] ?? 5)
  const dists = argv.length > 3 ? argv.slice(3) : ['packages/host/dist']
  const builds = []
  for (const dist of dists) builds.push({ dist, createHost: (await import(pathToFileURL(join(resolve(dist), 'index.js')).href)).createHost, rows: [] })
  return { rounds, builds }
}

/** A 6,250-turn session: 50,000 events (tests/web/big-session-events.mjs). */
export const bigEvents = () => bigSessionEvents(6_250)

/**
 * Starts a setImmediate ticker and the CPU clock; `stop()` gives the wall time, the CPU and the
 * longest gap between two ticks so far (the longest the host's other sessions waited).
 */
export function watchEventLoop() {
  let longest = 0
  let tick = performance.now()
  let ticking = true
  const ticker = () => {
    const now = performance.now()
    longest = Math.max(longest, now - tick)
    tick = now
    if (ticking) setImmediate(ticker)
  }
  setImmediate(ticker)
  const cpu = process.cpuUsage()
  const started = performance.now()
  return {
    async stop() {
      const wall = performance.now() - started
      const used = process.cpuUsage(cpu)
      // One more tick, so that a gap still open now (work that never yielded) is counted.
      await new Promise((resolve) => setImmediate(resolve))
      ticking = false
      return { wall, cpu: (used.user + used.system) / 1000, longest }
    },
  }
}

export const ms = (value) => `${value.toFixed(1)} ms`

/** Runs `round(createHost)` for every build, `rounds` times, the order alternating; prints `line(row)` for each. */
export async function alternate(rounds, builds, round, line) {
  for (let r = 0; r < rounds; r += 1) {
    for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
      const row = await round(build.createHost)
      build.rows.push(row)
      console.log(`round ${r + 1}, ${build.dist} (load ${loadavg()[0].toFixed(1)}): ${line(row)}`)
    }
  }
}

/** Median (min–max) of `pick` over a build's rows. */
export function spread(rows, pick) {
  const values = rows.map(pick).sort((a, b) => a - b)
  return `${values[Math.floor(values.length / 2)].toFixed(1)} ms (${values[0].toFixed(1)}–${values.at(-1).toFixed(1)})`
}
