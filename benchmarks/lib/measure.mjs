// What each figure runs, in which children, in which order. ctx = { plan, rounds, log, longTimeoutMs }.
// Every function returns the figure's data as stored in results.json (and printed by --smoke).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { interleave, measureTurns, mean, median, runChild, spread } from './children.mjs'
import { CONCURRENT_DURABLE, CONTENDERS, DURABLE, MEMORY, PACED, RESUMERS, isSlow } from './plan.mjs'

const LONG = '`node benchmarks/run.mjs --long`'
const sec = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000).toLocaleString('en')} s`)

/** Figures 1–3 (child.mjs). */
export async function measurePeers({ plan, rounds, log }) {
  log(`figure 1: per turn at ${plan.fig1.prior} prior messages`)
  const fig1 = await measureTurns(CONTENDERS, plan.fig1, rounds)
  const fig2 = {}
  for (const p of plan.fig2) {
    log(`figure 2: history ${p.prior}`)
    fig2[p.prior] = await measureTurns(MEMORY, p, rounds)
  }
  const fig3 = {}
  for (const p of plan.fig3) {
    log(`figure 3: ${p.chunks} deltas of ${p.chunkSize} chars`)
    fig3[`${p.chunks}x${p.chunkSize}`] = await measureTurns(MEMORY, p, rounds)
  }
  const fig3b = {}
  for (const p of plan.fig3b) {
    log(`figure 3b: ${p.chunks} deltas of ${p.chunkSize} chars, paced (${p.pace})`)
    fig3b[`${p.chunks}x${p.chunkSize}/${p.pace}`] = await measureTurns(PACED, p, rounds)
  }
  return {
    fig1, fig2, fig3, fig3b, streamConfigs: plan.fig3.map((p) => [p.chunks, p.chunkSize]),
    plan: { fig1: plan.fig1, fig2: plan.fig2, fig3: plan.fig3, fig3b: plan.fig3b },
  }
}

/** Figure 4 (durable-child.mjs): a round = every durable contender at every history size once. */
export async function measureDurable({ plan, rounds, log }) {
  const { priors, samples, slowLargeSamples } = plan.fig4
  const n = (c, prior) => (isSlow(c) && prior === priors.at(-1) ? slowLargeSamples : samples)
  const cells = priors.flatMap((prior) => DURABLE.map((c) => ({
    key: `${prior}/${c.id}`, label: `figure 4: ${c.label}, ${prior} prior messages`, once: isSlow(c),
    run: () => runChild('durable-child.mjs', c, { prior, samples: n(c, prior) }),
  })))
  // Figure 4b: N sessions at once, one store, Bosun memory / JSONL / SQLite side by side.
  const concurrent = plan.fig4.concurrent ?? []
  const concurrentCells = concurrent.flatMap(({ sessions, turns }) => CONCURRENT_DURABLE.map((c) => ({
    key: `c${sessions}/${c.id}`, label: `figure 4b: ${c.label}, ${sessions} sessions × ${turns} turns, one store`,
    run: () => runChild('concurrency-child.mjs', c, { sessions, turns, sharedStore: true }),
  })))
  const raw = await interleave([...cells, ...concurrentCells], rounds, log)
  const runs = {}
  for (const prior of priors) {
    runs[prior] = {}
    for (const c of DURABLE) {
      const { results, reason } = raw[`${prior}/${c.id}`]
      runs[prior][c.id] = reason ? { ok: false, reason } : {
        ok: true, rounds: results.length, samples: results[0].wallMs.length,
        wallStep: spread(results.map((r) => median(r.wallMs) / 2)),
        growthStep: median(results.map((r) => median(r.growth) / 2)),
        writtenStep: median(results.map((r) => median(r.wchar) / 2)),
        // Over every timed turn of every round: includes the SQLite WAL checkpoints that fell in them.
        writtenMeanStep: mean(results.flatMap((r) => r.wchar)) / 2,
        sizeAfter: median(results.map((r) => r.sizeAfter)),
        raw: results,
      }
    }
  }
  const concurrency = {}
  for (const { sessions, turns } of concurrent) {
    concurrency[sessions] = {}
    const perRound = (r) => r.turns / (r.totalMs / 1000)
    const memory = raw[`c${sessions}/bosun-memory`].results
    for (const c of CONCURRENT_DURABLE) {
      const { results: rs, reason } = raw[`c${sessions}/${c.id}`]
      concurrency[sessions][c.id] = reason ? { ok: false, reason } : {
        ok: true, rounds: rs.length, sessions, turns,
        turnsPerS: spread(rs.map(perRound)), cpuMsPerTurn: median(rs.map((r) => r.cpuMs / r.turns)),
        p50: median(rs.map((r) => r.turnMs.p50)), p99: median(rs.map((r) => r.turnMs.p99)), wrongDeltaTurns: rs.reduce((a, r) => a + r.wrongDeltaTurns, 0),
        // Against the memory store of the same round (the rounds are interleaved: a slow spell of the machine hits both).
        ofMemory: memory?.length === rs.length ? spread(rs.map((r, i) => perRound(r) / perRound(memory[i]))) : undefined,
        raw: rs.map(({ totalMs, cpuMs, turns: t, turnMs }) => ({ totalMs, cpuMs, turns: t, turnMs })),
      }
    }
  }
  return { priors, samples, slowLargeSamples, runs, concurrent, concurrency }
}

/**
 * Figure 5 (resume-child.mjs). Untimed preparation first (one child per store and size writes the
 * stored session into a directory kept for the figure), then the rounds: each round reopens every
 * stored session once, each in a fresh child. `only(n, c)` picks the cells.
 */
async function resume({ sizes, reps, only, rounds, log, childOptions, once = () => false }) {
  const work = mkdtempSync(join(tmpdir(), 'bench-resume-'))
  try {
    const cells = (phase) => sizes.flatMap((n) => RESUMERS.filter((c) => only(n, c)).map((c) => ({
      key: `${n}/${c.id}`, label: `figure 5: ${phase === 'prepare' ? 'writing' : 'reopening'} ${n.toLocaleString('en')} events, ${c.label}`, once: once(n),
      run: () => runChild('resume-child.mjs', c, { phase, events: n, reps: reps(n), dir: join(work, String(n)) }, childOptions),
    })))
    const prepared = await interleave(cells('prepare'), 1, log)
    const measured = await interleave(cells('measure').filter((cell) => !prepared[cell.key].reason), rounds, log)
    const runs = {}
    for (const n of sizes) {
      runs[n] = {}
      for (const c of RESUMERS.filter((c) => only(n, c))) {
        const key = `${n}/${c.id}`
        const reason = prepared[key].reason ?? measured[key].reason
        if (reason) { runs[n][c.id] = { ok: false, reason }; continue }
        const prep = prepared[key].results[0], rs = measured[key].results
        const ms = (k) => (rs[0][k] === undefined ? undefined : spread(rs.map((r) => r[k])))
        runs[n][c.id] = {
          ok: true, rounds: rs.length, reps: reps(n), events: rs[0].events, messages: prep.messages, bytes: rs[0].bytes, prepareS: prep.childMs / 1000,
          plainMs: ms('plainMs'), openMs: ms('openMs'), createAgentMs: ms('createAgentMs'), getStateMs: ms('getStateMs'),
        }
      }
    }
    return runs
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

export async function measureResume({ plan, rounds, log }) {
  const { sizes, reps, longSize } = plan.fig5
  // The largest size is the `--long` run's, for every store: writing and reopening 1,000,000 events
  // took ~2 of the default run's ~10 minutes, and section 3's vitest figures (the vitest part of
  // `pnpm bench`) time Bosun's own 1,000,000-event opens on every run.
  const runs = await resume({ sizes, reps, rounds, log, only: (n) => n !== longSize })
  const below = sizes.filter((n) => n < longSize).at(-1)
  const k = longSize / below
  runs[longSize] = {}
  for (const c of RESUMERS) {
    const r = runs[below]?.[c.id]
    const ms = r?.ok ? (r.getStateMs ?? r.openMs) : undefined
    const x = ms ? ` (at ${below.toLocaleString('en')} events: ${r.getStateMs ? 'getState' : 'store.open'} ${sec(ms.median)}, the child writing it ${sec(r.prepareS * 1000)} in all; × ${k} if linear)` : ''
    runs[longSize][c.id] = { ok: false, long: true, reason: `in the \`--long\` run only${x}; filled by ${LONG}` }
  }
  return { sizes, reps: sizes.map(reps), longSize, runs }
}

/** Figure 6 (memory-child.mjs, with --expose-gc): one round, heap after GC is near-deterministic. */
export async function measureMemory({ plan, log }) {
  const { prior, loaded, idle } = plan.fig6
  const out = { prior, loadedSessions: loaded, idleSessions: idle, loaded: {}, idle: {} }
  const child = (c, params) => runChild('memory-child.mjs', c, { prior, ...params }, { nodeArgs: ['--expose-gc'] })
  for (const c of MEMORY) {
    log(`figure 6: ${c.label}, ${loaded} loaded sessions (1 turn each)`)
    out.loaded[c.id] = await child(c, { sessions: loaded, turn: true })
    if (idle) {
      log(`figure 6: ${c.label}, ${idle} idle sessions`)
      out.idle[c.id] = await child(c, { sessions: idle, turn: false })
    }
  }
  return out
}

/** Figure 7 (concurrency-child.mjs): a round = every contender at every size once. */
async function concurrency({ sizes, turns, only, rounds, log, childOptions, once = () => false }) {
  const cells = sizes.flatMap((n) => MEMORY.filter((c) => only(n, c)).map((c) => ({
    key: `${n}/${c.id}`, label: `figure 7: ${c.label}, ${n} sessions × ${turns} turns`, once: once(c),
    run: () => runChild('concurrency-child.mjs', c, { sessions: n, turns }, childOptions),
  })))
  const raw = await interleave(cells, rounds, log)
  const runs = {}
  for (const n of sizes) {
    runs[n] = {}
    for (const c of MEMORY.filter((c) => only(n, c))) {
      const { results: rs, reason } = raw[`${n}/${c.id}`]
      runs[n][c.id] = reason ? { ok: false, reason } : {
        ok: true, rounds: rs.length, sessions: n, turns: rs[0].turns,
        turnsPerS: spread(rs.map((r) => r.turns / (r.totalMs / 1000))), totalMs: median(rs.map((r) => r.totalMs)), cpuMs: median(rs.map((r) => r.cpuMs)),
        p50: median(rs.map((r) => r.turnMs.p50)), p99: median(rs.map((r) => r.turnMs.p99)), wrongDeltaTurns: rs.reduce((a, r) => a + r.wrongDeltaTurns, 0),
        raw: rs.map(({ totalMs, cpuMs, turnMs, wrongDeltaTurns, rss, childMs }) => ({ totalMs, cpuMs, turnMs, wrongDeltaTurns, rss, childMs })),
      }
    }
  }
  return runs
}

export async function measureConcurrency({ plan, rounds, log }) {
  const { sizes, turns, longSize, longIds } = plan.fig7
  const deferred = (n, c) => n === longSize && longIds.includes(c.id)
  const runs = await concurrency({ sizes, turns, rounds, log, only: (n, c) => !deferred(n, c), once: isSlow })
  const below = sizes.filter((n) => n < longSize).at(-1)
  for (const id of longIds) {
    const r = runs[below]?.[id]
    const x = r?.ok ? ` (timed run ~${sec(r.totalMs * longSize / below)} per child, extrapolated linearly from ${sec(r.totalMs)} at ${below.toLocaleString('en')} sessions)` : ''
    runs[longSize][id] = { ok: false, long: true, reason: `in the \`--long\` run only${x}; filled by ${LONG}` }
  }
  return { turns, sizes, longSize, runs }
}

/**
 * `--long`: the cells the default run leaves out. LangGraph's ~1,000,000-event checkpoint gets an
 * 8 GiB heap; every child gets `longTimeoutMs` (a stopped child's reason says where it stopped).
 */
export async function measureLong({ plan, rounds, log, longTimeoutMs }) {
  const { longSize: n5, reps } = plan.fig5
  const fig5 = await resume({
    sizes: [n5], reps, rounds, log, only: () => true,
    childOptions: { nodeArgs: ['--max-old-space-size=8192'], timeoutMs: longTimeoutMs },
  })
  const { longSize: n7, longIds, turns } = plan.fig7
  const fig7 = await concurrency({ sizes: [n7], turns, rounds, log, only: (_n, c) => longIds.includes(c.id), childOptions: { timeoutMs: longTimeoutMs } })
  return { fig5Size: n5, fig5: fig5[n5], fig7Size: n7, turns, fig7: fig7[n7] }
}
