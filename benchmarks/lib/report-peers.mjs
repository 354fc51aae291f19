// The main part of the peers section: command, machine, versions, protocol, figures 1–3 and the
// goal lines (mechanical: threshold, measured figure, met / not met). No analysis: that is
// written by hand after the `<!-- peers:end -->` marker.
import { f, machine, n, ratio, roundsText, sp, versions } from './report-common.mjs'
import { CONTENDERS, MEMORY, PACED } from './plan.mjs'

const sw = (p) => `${p.samples} + ${p.warmup}${p.slow ? ` [${p.slow.samples} + ${p.slow.warmup}]` : ''}`
const cell = (r) => (r.reason ? `not run: ${r.reason}` : sp({ median: r.wall, min: r.wallMin, max: r.wallMax }))

/**
 * `run`: meta of figures 1–3; `total`: { command, seconds } of the whole run when it made all seven;
 * `versions`: the line stored when they were measured (results.json files older than that have
 * none: the versions of the tree rendering them are shown).
 */
export function peersMain({ fig1, fig2, fig3, fig3b, streamConfigs, plan, run, total, versions: measured }) {
  const L = ['## Peers (`benchmarks/`)', '']
  const cmd = total
    ? `Command: \`${total.command}\` (all seven figures; what \`pnpm bench\` runs after its vitest part). Run of ${run.date}, ${roundsText(run.rounds)}, ${(total.seconds / 60).toFixed(1)} min in all, figures 1–3 ${(run.seconds / 60).toFixed(1)} min.`
    : `Command: \`${run.command}\` (figures 1–3 only; the regions of figures 4–7 below keep their own command lines). Run of ${run.date}, ${roundsText(run.rounds)}, ${(run.seconds / 60).toFixed(1)} min.`
  L.push(cmd, `Machine: ${run.machine ?? machine()}.`, `Versions: ${measured ?? versions()}.`, '')
  L.push(`**Protocol.** Every contender runs the same scripted conversation. One turn = a user message; model step 1 streams one tool call (\`lookup({"key":"k"})\`: name/id, then the arguments); the tool runs (\`value of k\`); model step 2 streams the answer as N text deltas (default 10 deltas of 10 characters); the caller receives every text delta through the framework's own streaming interface and the harness checks the count. Mocks answer instantly from prepared chunks. Each figure runs each contender in its own child process (\`benchmarks/child.mjs\`), interleaved by round (A, B, C, …, A, B, C, …). In a child, each sample builds a fresh session holding the prior history (untimed), runs one untimed warm-up turn in it, then times ONE turn (\`performance.now()\` wall, \`process.cpuUsage()\` user+system CPU); the first samples of each child are discarded as warm-up. Samples per child, as timed + discarded, the AI SDK and LangGraph in brackets (fewer: their turns are most of the run's time; \`benchmarks/lib/plan.mjs\`): figure 1: ${sw(plan.fig1)}; figure 2 at ${plan.fig2.map((p) => n(p.prior)).join(' / ')} prior messages: ${plan.fig2.map(sw).join(' / ')}; figure 3 at ${plan.fig3.map((p) => `${n(p.chunks)}×${p.chunkSize}`).join(' / ')}: ${plan.fig3.map(sw).join(' / ')}. Cells: median over rounds of each round's median wall time per turn, (min–max of the round medians); CPU is the median over rounds of the mean per turn. The AI SDK and LangGraph run in the first round only (one value, no spread): at 30–9,000× Bosun's time per turn they were three quarters of the run's time, and no ratio here depends on their spread. The timed turn includes everything the framework does for the turn (both model steps, the tool call, history/state bookkeeping, checkpoint/log writes, delivering deltas to the caller) and the mock model's trivial cost; per step ≈ per turn ÷ 2. Garbage from untimed setup may be collected inside a timed turn (all contenders alike).`)
  L.push('', '**How each is driven.** Bosun: `createAgent` (built `dist`), a minimal inline `ModelAdapter` yielding prepared chunks (what `scripted()` yields, without its per-call validation/splitting), `agent.followup()` + `await agent.whenIdle()`, deltas read from `assistant/chunk` events via `session.subscribe`; JSONL/SQLite stores with `batchWindowMs: 0` (each step still awaits its durable flush: three flushes per tool turn, each one write + fdatasync); the tmpfs row is the JSONL store in a directory under `/dev/shm`. pi-agent-core: `new Agent({ streamFn })` + `agent.prompt()`, the stream function pushes pi-ai provider-shaped events into `createAssistantMessageEventStream()` (not pi-ai\'s faux provider, which serialises the whole context per call); deltas via `agent.subscribe` `message_update`/`text_delta`. AI SDK: `streamText({ model: MockLanguageModelV3, messages, tools, stopWhen: stepCountIs(5) })`, reading `textStream`, appending `(await result.response).messages` to the caller\'s history. LangGraph: `createReactAgent` with a minimal `BaseChatModel` subclass (chunks reported via `handleLLMNewToken`, as providers do), a zod `tool()`, `graph.stream(..., { streamMode: \'messages\' })`, one thread per session; the prior history is passed as input of the warm-up turn.', '')

  const base1 = fig1['bosun-memory'], j1 = fig1['bosun-jsonl']
  L.push(`### Figure 1 — per-turn overhead (2 model steps + 1 tool call), ${plan.fig1.prior} prior messages`, '')
  L.push('| contender | wall ms / turn (spread) | wall ms / step | CPU ms / turn | ratio to Bosun memory (wall) | ratio to Bosun JSONL (wall) |', '|---|---:|---:|---:|---:|---:|')
  for (const c of CONTENDERS) {
    const r = fig1[c.id]
    if (r.reason) { L.push(`| ${c.label} | not run: ${r.reason} | | | | |`); continue }
    L.push(`| ${c.label} | ${cell(r)} | ${f(r.wall / 2)} | ${f(r.cpu)} | ${base1.wall ? ratio(r.wall, base1.wall) : ''} | ${j1.wall ? ratio(r.wall, j1.wall) : ''} |`)
  }
  L.push('| pi-agent-core, session file | not run: pi-agent-core has no persistence; session files belong to pi-coding-agent\'s SessionManager, not benchmarked | | | | |', '')

  L.push('### Figure 2 — history scaling (memory persistence), wall ms per turn', '')
  const priors = Object.keys(fig2)
  L.push(`| contender | ${priors.map((p) => `${n(Number(p))} prior msgs`).join(' | ')} | 10,000 ÷ 100 |`, `|---|${priors.map(() => '---:').join('|')}|---:|`)
  for (const c of MEMORY) {
    const a = fig2[100]?.[c.id], b = fig2[10000]?.[c.id]
    L.push(`| ${c.label} | ${priors.map((p) => cell(fig2[p][c.id])).join(' | ')} | ${a?.wall && b?.wall ? `**${(b.wall / a.wall).toFixed(2)}×**` : ''} |`)
  }
  const r2 = (p, c) => (fig2[p][c.id].wall && fig2[p]['bosun-memory'].wall ? ratio(fig2[p][c.id].wall, fig2[p]['bosun-memory'].wall) : 'n/a')
  L.push('', `Ratios to Bosun at each history: ${priors.map((p) => `${p}: ${MEMORY.slice(1).map((c) => `${c.label} ${r2(p, c)}`).join(', ')}`).join('; ')}. "Prior messages" is the model-visible history (a turn adds 4: user, assistant tool call, tool result, assistant text); Bosun's log holds more events than that (chunks, step/turn markers).`, '')

  L.push('### Figure 3 — streaming: text deltas per second through the framework to the caller', '')
  L.push('One turn at 10 prior messages whose answer is N deltas of c characters; deltas/s = N ÷ wall time of the whole turn (so small N includes the turn overhead).', '')
  L.push(`| contender | ${streamConfigs.map(([k, c]) => `${k}×${c} ch`).join(' | ')} | µs/delta 10,000 vs 1,000 (10 ch) |`, `|---|${streamConfigs.map(() => '---:').join('|')}|---:|`)
  for (const c of MEMORY) {
    const row = streamConfigs.map(([k, ch]) => { const r = fig3[`${k}x${ch}`][c.id]; return r.reason ? `not run: ${r.reason}` : `${n(Math.round(k / (r.wall / 1000)))}/s` })
    const a = fig3['1000x10']?.[c.id], b = fig3['10000x10']?.[c.id]
    L.push(`| ${c.label} | ${row.join(' | ')} | ${a?.wall && b?.wall ? `${a.wall.toFixed(2)} → ${(b.wall / 10).toFixed(2)}` : ''} |`)
  }
  if (fig3b) L.push('', ...pacedFigure(fig3b, plan.fig3b))
  L.push('', ...goals(fig1, fig2, fig3, fig3b))
  L.push('', 'Figures 4–7 follow, each in its own region with the command that produced it: the full run (`pnpm bench`) makes all seven, `node benchmarks/run.mjs --only durable|resume|memory|concurrency` rewrites one region, `--only peers` the part above. The cells that take minutes each (figure 5: LangGraph at ~1,000,000 events; figure 7: the AI SDK and LangGraph at 1,000 sessions) come from `node benchmarks/run.mjs --long`, shown with the date of that run, or state why they are empty. Not measured: figures 6 and 7 on the durable stores (JSONL, SQLite); pi-coding-agent\'s session files.')
  return L.join('\n')
}

/** Figure 3b: the answer's deltas each in its own macrotask (a setImmediate, or a 1 ms timer). */
function pacedFigure(fig3b, configs) {
  const L = ['### Figure 3b — paced streaming: each delta in its own macrotask', '']
  L.push('The same turn as figure 3, but the mock model waits before each text delta of the answer — `immediate`: a `setImmediate` (the event loop goes round once between deltas, as when each arrives in its own network read), `timer`: a `setTimeout(1)` (a model emitting about one delta per millisecond; the wall time is mostly the timers\'). Deltas/s = N ÷ wall time of the whole turn; CPU µs per delta = CPU time of the turn ÷ N (turn overhead included). Same child, samples and rounds as figure 3 (`benchmarks/lib/plan.mjs`, `fig3b`).', '')
  const keys = configs.map((p) => [`${p.chunks}x${p.chunkSize}/${p.pace}`, p])
  L.push(`| contender | ${keys.map(([, p]) => `${n(p.chunks)}×${p.chunkSize} ch, ${p.pace}: deltas/s (spread) | CPU µs / delta`).join(' | ')} |`, `|---|${keys.map(() => '---:|---:').join('|')}|`)
  for (const c of PACED) {
    const cells = keys.map(([key, p]) => {
      const r = fig3b[key]?.[c.id]
      if (!r || r.reason) return `not run: ${r?.reason ?? 'no result'} |`
      const rate = (ms) => n(Math.round(p.chunks / (ms / 1000)))
      return `${r.wallMin === r.wallMax ? rate(r.wall) : `${rate(r.wall)} (${rate(r.wallMax)}–${rate(r.wallMin)})`}/s | ${f((r.cpu * 1000) / p.chunks)}`
    })
    L.push(`| ${c.label} | ${cells.join(' | ')} |`)
  }
  return L
}

function goals(fig1, fig2, fig3, fig3b) {
  const g = ['### Goals', '']
  const base = fig1['bosun-memory']
  const peers = ['pi', 'ai', 'lg-memory'].map((id) => fig1[id]).filter((r) => r.wall)
  if (base.wall && peers.length) {
    const fastest = Math.min(...peers.map((r) => r.wall))
    g.push(`- Per-turn overhead, memory store, ≥ 3× lower than the fastest peer (${f(fastest)} ms): Bosun ${f(base.wall)} ms → ${(fastest / base.wall).toFixed(2)}× — **${fastest / base.wall >= 3 ? 'met' : 'not met'}**.`)
    const j = fig1['bosun-jsonl']
    const t = fig1['bosun-jsonl-tmpfs']
    const tmpfs = t?.wall ? ` On tmpfs, where fsync is nearly free, the same store takes ${f(t.wall)} ms (${t.wall < fastest ? 'below' : 'above'} that figure): the difference is the disk's sync latency, paid at each of the turn's three flushes; what remains on tmpfs is the store's asynchronous file I/O (a thread-pool round trip per flush) and the framework.` : ''
    if (j.wall) g.push(`- Durable JSONL per-turn lower than every peer's in-memory figure: Bosun JSONL ${f(j.wall)} ms vs fastest peer in memory ${f(fastest)} ms — **${j.wall < fastest ? 'met' : 'not met'}**.${tmpfs}`)
  }
  const h100 = fig2[100]?.['bosun-memory'], h10k = fig2[10000]?.['bosun-memory'], h1k = fig2[1000]?.['bosun-memory']
  if (h100?.wall && h10k?.wall) g.push(`- Flat history scaling (≤ 1.2× from 100 to 10,000 messages; ≥ 1,000 turns = 4,000 messages): ${(h10k.wall / h100.wall).toFixed(2)}×${h1k?.wall ? ` (1,000: ${(h1k.wall / h100.wall).toFixed(2)}×)` : ''} — **${h10k.wall / h100.wall <= 1.2 ? 'met' : 'not met'}**.`)
  const s = fig3['1000x10']
  if (s?.['bosun-memory'].wall) {
    const best = Math.max(...['pi', 'ai', 'lg-memory'].map((id) => (s[id].wall ? 1000 / s[id].wall : 0)))
    const x = 1000 / s['bosun-memory'].wall / best
    g.push(`- Streaming ≥ 10× the peers' deltas per second (1,000 × 10 ch): Bosun ${x.toFixed(1)}× the best peer — **${x >= 10 ? 'met' : 'not met'}**. Per-delta cost at 1,000 vs 10,000 deltas: the last column of figure 3.`)
  }
  const paced = fig3b?.['1000x10/immediate']
  if (paced?.['bosun-memory']?.wall && paced.pi?.wall) {
    const x = paced.pi.wall / paced['bosun-memory'].wall
    g.push(`- Paced streaming at least pi-agent-core's deltas per second (issue 20, goal 3; 1,000 × 10 ch, each delta after a \`setImmediate\`): Bosun ${x.toFixed(2)}× pi's rate — **${x >= 1 ? 'met' : 'not met'}** (figure 3b; the wall time here is mostly the event loop's turns, so CPU per delta is the column to compare).`)
  }
  g.push('- 10,000 idle sessions under 1 GiB of heap: see figure 6 below.')
  g.push('- Durable step (figure 4), resume (figure 5), concurrency (figure 7): no pass/fail threshold is evaluated for them.')
  return g
}
