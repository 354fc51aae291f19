// `pnpm bench` (root) → `node run.mjs` here. Builds the workspace packages, then runs every
// contender in its own child process, interleaved by round (A, B, C, …, A, B, C, …), and writes
// the `## Peers` section of docs/benchmarks.md (between the peers markers; nothing else).
// `node run.mjs --smoke` runs one sample of each and writes nothing (used by smoke.test.ts).
// `node run.mjs --only memory` runs figure 6 alone: merges it into results.json and rewrites only
// the `<!-- peers-memory:start -->`…`<!-- peers-memory:end -->` region inside the peers section.
import { execFileSync, execFile } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const smoke = process.argv.includes('--smoke')
const onlyIndex = process.argv.indexOf('--only')
const only = onlyIndex >= 0 ? process.argv[onlyIndex + 1] : undefined
if (only !== undefined && only !== 'memory') throw new Error(`--only: unknown figure ${only} (known: memory)`)
const run = promisify(execFile)

export const CONTENDERS = [
  { id: 'bosun-memory', label: 'Bosun, memory store', contender: 'bosun', variant: 'memory', durable: false },
  { id: 'bosun-jsonl', label: 'Bosun, JSONL store (batchWindowMs 0)', contender: 'bosun', variant: 'jsonl', durable: true },
  { id: 'bosun-sqlite', label: 'Bosun, SQLite store (batchWindowMs 0)', contender: 'bosun', variant: 'sqlite', durable: true },
  { id: 'pi', label: 'pi-agent-core', contender: 'pi', variant: 'memory', durable: false },
  { id: 'ai', label: 'AI SDK streamText', contender: 'ai', variant: 'memory', durable: false },
  { id: 'lg-memory', label: 'LangGraph, MemorySaver', contender: 'langgraph', variant: 'memory', durable: false },
  { id: 'lg-sqlite', label: 'LangGraph, SqliteSaver', contender: 'langgraph', variant: 'sqlite', durable: true },
]
const MEMORY = CONTENDERS.filter((c) => !c.durable)

export async function runChild(c, params) {
  const config = JSON.stringify({ contender: c.contender, variant: c.variant, ...params })
  try {
    const { stdout } = await run(process.execPath, [join(here, 'child.mjs'), config], { cwd: here, timeout: 300_000, maxBuffer: 1 << 26 })
    return JSON.parse(stdout.trim().split('\n').pop())
  } catch (error) {
    return { ok: false, reason: `child failed: ${String(error.message).split('\n')[0]}` }
  }
}

/** Figure 6: one child per contender and configuration (children run with --expose-gc). */
export async function runMemoryChild(c, params) {
  const config = JSON.stringify({ contender: c.contender, variant: c.variant, ...params })
  try {
    const { stdout } = await run(process.execPath, ['--expose-gc', join(here, 'memory-child.mjs'), config], { cwd: here, timeout: 300_000, maxBuffer: 1 << 26 })
    return JSON.parse(stdout.trim().split('\n').pop())
  } catch (error) {
    return { ok: false, reason: `child failed: ${String(error.message).split('\n')[0]}` }
  }
}

// 10 turns of history = 40 model-visible messages.
const MEMORY_PRIOR = 40
async function measureMemory(log) {
  const configs = smoke ? { loaded: 10 } : { loaded: 100, idle: 10_000 }
  const out = { prior: MEMORY_PRIOR, loadedSessions: configs.loaded, idleSessions: configs.idle, loaded: {}, idle: {} }
  for (const c of MEMORY) {
    log?.(`figure 6: ${c.label}, ${configs.loaded} loaded sessions (1 turn each)`)
    out.loaded[c.id] = await runMemoryChild(c, { prior: MEMORY_PRIOR, sessions: configs.loaded, turn: true })
    if (configs.idle) {
      log?.(`figure 6: ${c.label}, ${configs.idle} idle sessions`)
      out.idle[c.id] = await runMemoryChild(c, { prior: MEMORY_PRIOR, sessions: configs.idle, turn: false })
    }
  }
  return out
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length

/** Interleaved rounds; per contender: median over rounds of the round medians, min–max of round medians. */
async function measure(contenders, params, rounds) {
  const perRound = new Map(contenders.map((c) => [c.id, { wall: [], cpu: [], reason: undefined, prior: undefined }]))
  for (let r = 0; r < rounds; r++) {
    for (const c of contenders) {
      const acc = perRound.get(c.id)
      if (acc.reason) continue
      const result = await runChild(c, params)
      if (!result.ok) { acc.reason = result.reason; continue }
      acc.prior = result.priorMessages
      acc.wall.push(median(result.wallMs))
      acc.cpu.push(mean(result.cpuMs))
    }
  }
  const out = {}
  for (const [id, acc] of perRound) {
    out[id] = acc.reason
      ? { reason: acc.reason }
      : { wall: median(acc.wall), wallMin: Math.min(...acc.wall), wallMax: Math.max(...acc.wall), cpu: median(acc.cpu), prior: acc.prior }
  }
  return out
}

const f = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3))
const ratio = (x, base) => `${(x / base).toFixed(x / base >= 10 ? 0 : 1)}×`

function versions() {
  const req = createRequire(join(here, 'package.json'))
  const pkgs = ['@mariozechner/pi-agent-core', '@mariozechner/pi-ai', 'ai', '@langchain/langgraph', '@langchain/core', '@langchain/langgraph-checkpoint-sqlite', 'better-sqlite3', 'zod']
  const v = {}
  for (const p of pkgs) {
    try {
      const main = p === 'better-sqlite3' ? createRequire(req.resolve('@langchain/langgraph-checkpoint-sqlite')).resolve('better-sqlite3/package.json') : join(root, 'benchmarks/node_modules', p, 'package.json')
      v[p] = JSON.parse(readFileSync(main, 'utf8')).version
    } catch { v[p] = '?' }
  }
  v['@bosun/core'] = `workspace (git ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim()} + working tree)`
  return v
}

async function main() {
  if (!smoke || !existsSync(join(root, 'packages/core/dist/index.js'))) {
    execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  }
  const rounds = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3)
  const s = (n) => (smoke ? { warmup: 0, samples: 1 } : { warmup: Math.max(5, n >> 2), samples: n })
  const started = Date.now()
  const log = (m) => { if (!smoke) console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${m}`) }

  if (only === 'memory') {
    const fig6 = await measureMemory(log)
    if (smoke) { process.stdout.write(JSON.stringify({ fig6 }) + '\n'); return }
    const resultsPath = join(here, 'results.json')
    const previous = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {}
    writeFileSync(resultsPath, JSON.stringify({ ...previous, fig6 }, null, 2))
    const docPath = join(root, 'docs/benchmarks.md')
    writeFileSync(docPath, withMemoryRegion(readFileSync(docPath, 'utf8'), memoryRegion(fig6, Date.now() - started, 'node benchmarks/run.mjs --only memory')))
    log('docs/benchmarks.md updated (figure 6 region only)')
    return
  }

  log('figure 1: per turn at 100 prior messages')
  const fig1 = await measure(CONTENDERS, { prior: 100, ...s(60) }, rounds)
  const fig2 = {}
  for (const prior of smoke ? [10] : [10, 100, 1000, 10000]) {
    log(`figure 2: history ${prior}`)
    fig2[prior] = await measure(MEMORY, { prior, ...s(prior >= 10000 ? 8 : prior >= 1000 ? 20 : 40) }, rounds)
  }
  const fig3 = {}
  const streamConfigs = smoke ? [[10, 1]] : [[100, 10], [1000, 1], [1000, 10], [1000, 100], [10000, 10]]
  for (const [chunks, chunkSize] of streamConfigs) {
    log(`figure 3: ${chunks} deltas of ${chunkSize} chars`)
    fig3[`${chunks}x${chunkSize}`] = await measure(MEMORY, { prior: 10, chunks, chunkSize, ...s(chunks >= 10000 ? 6 : 20) }, rounds)
  }
  const fig6 = await measureMemory(log)
  const results = { fig1, fig2, fig3, streamConfigs, fig6 }
  if (smoke) {
    process.stdout.write(JSON.stringify(results) + '\n')
    return
  }
  writeFileSync(join(here, 'results.json'), JSON.stringify(results, null, 2))
  writeDoc(results, rounds, Date.now() - started)
  log('docs/benchmarks.md updated (## Peers)')
}

const MEM_RE = /<!-- peers-memory:start -->[\s\S]*?<!-- peers-memory:end -->/
/** Replaces the figure 6 region, or inserts it just before the end of the peers section. */
function withMemoryRegion(doc, region) {
  if (MEM_RE.test(doc)) return doc.replace(MEM_RE, () => region)
  if (doc.includes('<!-- peers:end -->')) return doc.replace('<!-- peers:end -->', () => `${region}\n<!-- peers:end -->`)
  return `${doc.trimEnd()}\n\n${region}\n`
}

const GIB = 2 ** 30
const kb = (b) => (b / 1024).toFixed(1)
const mb = (b) => (b / 2 ** 20).toFixed(1)
const MEMORY_HOLDS = {
  'bosun-memory': 'an agent from `createAgent` (its own `memoryStore()`, model adapter instance, session with the event log: the 40 messages are ~290 log events incl. chunk/step/turn events), loaded from its own copy of the log',
  pi: 'a pi `Agent` (state: its own copy of the messages, tools, model; its own stream function)',
  ai: 'the caller\'s `ModelMessage[]` (own copy); model and tools shared — the AI SDK keeps no session object',
  'lg-memory': 'a thread in ONE shared compiled `createReactAgent` graph + ONE shared `MemorySaver`: the thread\'s checkpoints and pending writes (history loaded with `graph.updateState(..., \'agent\')`, no model call)',
}

function memoryRegion(fig6, elapsedMs, command) {
  const cpus = os.cpus()
  const L = ['<!-- peers-memory:start -->', '### Figure 6 — memory: heap per idle session', '']
  L.push(`Command: \`${command}\` (figure 6 only; also part of \`pnpm bench\`). Run of ${new Date().toISOString().slice(0, 10)}, ${(elapsedMs / 1000).toFixed(0)} s, one child per contender and configuration, one round (heap after GC is near-deterministic). Machine: ${cpus.length} × ${cpus[0]?.model ?? '?'}, ${(os.totalmem() / GIB).toFixed(1)} GiB RAM; Node.js ${process.version}, children run with \`--expose-gc\`.`, '')
  L.push(`**Protocol** (\`benchmarks/memory-child.mjs\`, the contenders\' \`idle()\`). A session holds ${fig6.prior} prior messages (10 turns of the scripted conversation), each session its own copy (parsed from JSON, as if loaded from disk). The child loads the contender, builds and drops 3 warm-up sessions, reads \`process.memoryUsage()\` after \`global.gc()\` ×2 (baseline), builds N sessions and keeps them all referenced, reads it again after \`gc\`. Per session = (after − baseline) ÷ N. *Loaded*: N = ${fig6.loadedSessions}, each session loaded then ran ONE real turn (tool call + 10 deltas), then idle. *Idle*: N = ${fig6.idleSessions?.toLocaleString('en') ?? '—'}, loaded only (no turn), so that LangGraph and the AI SDK build 10,000 in seconds. "Off-heap" = \`arrayBuffers\` (LangGraph\'s \`MemorySaver\` stores checkpoints serialized in \`Uint8Array\`s, outside \`heapUsed\`); it is 0 for the others. Total heapUsed includes the process baseline (modules, framework, shared graph).`, '')
  L.push(`| contender | one idle session is | loaded (${fig6.loadedSessions}, +1 turn): KiB heap / session | off-heap KiB / session | ${(fig6.idleSessions ?? 0).toLocaleString('en')} idle: total heapUsed MiB | KiB heap / session | off-heap KiB / session | build time s |`, '|---|---|---:|---:|---:|---:|---:|---:|')
  for (const c of MEMORY) {
    const a = fig6.loaded[c.id], b = fig6.idle?.[c.id]
    const la = a?.ok ? [kb(a.perSession.heapUsed), kb(a.perSession.arrayBuffers)] : [`not run: ${a?.reason}`, '']
    const lb = !b ? ['—', '—', '—', '—'] : b.ok ? [mb(b.heap.heapUsed), kb(b.perSession.heapUsed), kb(b.perSession.arrayBuffers), (b.buildMs / 1000).toFixed(1)] : [`not run: ${b.reason}`, '', '', '']
    L.push(`| ${c.label} | ${MEMORY_HOLDS[c.id] ?? ''} | ${la.join(' | ')} | ${lb.join(' | ')} |`)
  }
  const b = fig6.idle?.['bosun-memory']
  L.push('')
  if (b?.ok) L.push(`Goal — 10,000 idle Bosun sessions under 1 GiB of heap: ${(fig6.idleSessions).toLocaleString('en')} sessions, total heapUsed ${mb(b.heap.heapUsed)} MiB (${(b.heap.heapUsed / GIB).toFixed(2)} GiB; RSS ${mb(b.rss)} MiB) — **${fig6.idleSessions >= 10_000 && b.heap.heapUsed + b.heap.arrayBuffers < GIB ? 'met' : 'not met'}**; ${((1 - b.heap.heapUsed / GIB) * 100).toFixed(0)}% headroom, and Bosun holds the most heap per idle session of the four (see notes).`)
  else L.push('Goal — 10,000 idle Bosun sessions under 1 GiB of heap: **not measured** in this run.')
  L.push('', '**Notes.** (1) The sessions do not hold the same thing: a Bosun session keeps its whole event log (for 40 messages, ~290 events: every model delta is an `assistant/chunk` event, plus step/turn markers), the peers keep messages only. Where Bosun\'s ~78 KiB per idle session go was not profiled here (no heap snapshot taken; next step: `v8.writeHeapSnapshot()` in `memory-child.mjs`). (2) LangGraph\'s small heap figure is because `MemorySaver` keeps checkpoints serialized off-heap; after a real turn it retains every checkpoint of the thread (one per super-step), so heap + off-heap of a used thread (loaded column) is about the same as a Bosun session. Its per-session figures exclude the shared compiled graph (in the baseline); one graph per session, as figures 1–3 build it, was not measured. (3) *Loaded* uses N = 100 and includes one turn (4 more messages; for Bosun ~30 more events), so it differs from *Idle* for reasons not investigated (e.g. the AI SDK: 17 vs 7 KiB). (4) One round on one machine; a development run of the same children gave the same 10,000-session figures to within 1%. Only the Bosun memory store is measured: idle sessions on the JSONL/SQLite stores are not. Idle = no subscribers and not closed; nothing runs.')
  L.push('<!-- peers-memory:end -->')
  return L.join('\n')
}

function writeDoc({ fig1, fig2, fig3, streamConfigs, fig6 }, rounds, elapsedMs) {
  const v = versions()
  const cpus = os.cpus()
  const L = []
  const cell = (r, base) => (r.reason ? `not run: ${r.reason}` : `${f(r.wall)} (${f(r.wallMin)}–${f(r.wallMax)})`)
  L.push('## Peers (`benchmarks/`)', '')
  L.push(`Command: \`pnpm bench\` (root; runs vitest bench, then \`pnpm --filter @bosun/benchmarks bench\` = \`node benchmarks/run.mjs\`). Run of ${new Date().toISOString().slice(0, 10)}, ${rounds} interleaved rounds, ${(elapsedMs / 60000).toFixed(1)} min.`)
  L.push(`Machine: ${cpus.length} × ${cpus[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}; Node.js ${process.version}.`)
  L.push(`Versions: ${Object.entries(v).map(([k, x]) => `\`${k}\` ${x}`).join(', ')}.`, '')
  L.push('**Protocol.** Every contender runs the same scripted conversation. One turn = a user message; model step 1 streams one tool call (`lookup({"key":"k"})`: name/id, then the arguments); the tool runs (`value of k`); model step 2 streams the answer as N text deltas (default 10 deltas of 10 characters); the caller receives every text delta through the framework\'s own streaming interface and the harness checks the count. Mocks answer instantly from prepared chunks. Each figure runs each contender in its own child process (`benchmarks/child.mjs`), interleaved by round (A, B, C, …, A, B, C, …). In a child, each sample builds a fresh session holding the prior history (untimed), runs one untimed warm-up turn in it, then times ONE turn (`performance.now()` wall, `process.cpuUsage()` user+system CPU); the first quarter of samples (at least 5) are discarded as warm-up. Cells: median over rounds of each round\'s median wall time per turn, (min–max of the round medians); CPU is the mean per turn. The timed turn includes everything the framework does for the turn (both model steps, the tool call, history/state bookkeeping, checkpoint/log writes, delivering deltas to the caller) and the mock model\'s trivial cost; per step ≈ per turn ÷ 2. Garbage from untimed setup may be collected inside a timed turn (all contenders alike).')
  L.push('', '**How each is driven.** Bosun: `createAgent` (built `dist`), a minimal inline `ModelAdapter` yielding prepared chunks (what `scripted()` yields, without its per-call validation/splitting), `agent.followup()` + `await agent.whenIdle()`, deltas read from `assistant/chunk` events via `session.subscribe`; JSONL/SQLite stores with `batchWindowMs: 0` (each step still awaits its durable flush). pi-agent-core: `new Agent({ streamFn })` + `agent.prompt()`, the stream function pushes pi-ai provider-shaped events into `createAssistantMessageEventStream()` (not pi-ai\'s faux provider, which serialises the whole context per call); deltas via `agent.subscribe` `message_update`/`text_delta`. AI SDK: `streamText({ model: MockLanguageModelV3, messages, tools, stopWhen: stepCountIs(5) })`, reading `textStream`, appending `(await result.response).messages` to the caller\'s history. LangGraph: `createReactAgent` with a minimal `BaseChatModel` subclass (chunks reported via `handleLLMNewToken`, as providers do), a zod `tool()`, `graph.stream(..., { streamMode: \'messages\' })`, one thread per session; the prior history is passed as input of the warm-up turn.', '')

  const base1 = fig1['bosun-memory']
  L.push('### Figure 1 — per-turn overhead (2 model steps + 1 tool call), 100 prior messages', '')
  L.push('| contender | wall ms / turn (spread) | wall ms / step | CPU ms / turn | ratio to Bosun memory (wall) | ratio to Bosun JSONL (wall) |', '|---|---:|---:|---:|---:|---:|')
  for (const c of CONTENDERS) {
    const r = fig1[c.id]
    if (r.reason) { L.push(`| ${c.label} | not run: ${r.reason} | | | | |`); continue }
    L.push(`| ${c.label} | ${cell(r)} | ${f(r.wall / 2)} | ${f(r.cpu)} | ${base1.wall ? ratio(r.wall, base1.wall) : ''} | ${fig1['bosun-jsonl'].wall ? ratio(r.wall, fig1['bosun-jsonl'].wall) : ''} |`)
  }
  L.push('| pi-agent-core, session file | not run: pi-agent-core has no persistence; session files belong to pi-coding-agent\'s SessionManager, not benchmarked | | | | |', '')

  L.push('### Figure 2 — history scaling (memory persistence), wall ms per turn', '')
  const priors = Object.keys(fig2)
  L.push(`| contender | ${priors.map((p) => `${Number(p).toLocaleString('en')} prior msgs`).join(' | ')} | 10,000 ÷ 100 |`, `|---|${priors.map(() => '---:').join('|')}|---:|`)
  for (const c of MEMORY) {
    const row = priors.map((p) => cell(fig2[p][c.id]))
    const a = fig2[100]?.[c.id], b = fig2[10000]?.[c.id]
    L.push(`| ${c.label} | ${row.join(' | ')} | ${a?.wall && b?.wall ? `**${(b.wall / a.wall).toFixed(2)}×**` : ''} |`)
  }
  L.push('', `Ratios to Bosun at each history: ${priors.map((p) => `${p}: ${MEMORY.slice(1).map((c) => `${c.label} ${fig2[p][c.id].wall ? ratio(fig2[p][c.id].wall, fig2[p]['bosun-memory'].wall) : 'n/a'}`).join(', ')}`).join('; ')}. "Prior messages" is the model-visible history (a turn adds 4: user, assistant tool call, tool result, assistant text); Bosun\'s log holds more events than that (chunks, step/turn markers).`, '')

  L.push('### Figure 3 — streaming: text deltas per second through the framework to the caller', '')
  L.push('One turn at 10 prior messages whose answer is N deltas of c characters; deltas/s = N ÷ wall time of the whole turn (so small N includes the turn overhead).', '')
  L.push(`| contender | ${streamConfigs.map(([n, c]) => `${n}×${c} ch`).join(' | ')} | µs/delta 10,000 vs 1,000 (10 ch) |`, `|---|${streamConfigs.map(() => '---:').join('|')}|---:|`)
  for (const c of MEMORY) {
    const row = streamConfigs.map(([n, ch]) => { const r = fig3[`${n}x${ch}`][c.id]; return r.reason ? `not run: ${r.reason}` : `${Math.round(n / (r.wall / 1000)).toLocaleString('en')}/s` })
    const a = fig3['1000x10']?.[c.id], b = fig3['10000x10']?.[c.id]
    L.push(`| ${c.label} | ${row.join(' | ')} | ${a?.wall && b?.wall ? `${((a.wall / 1000) * 1000).toFixed(2)} → ${((b.wall / 10000) * 1000).toFixed(2)}` : ''} |`)
  }
  L.push('')

  // Goals
  const peersMem = ['pi', 'ai', 'lg-memory'].map((id) => fig1[id]).filter((r) => r.wall)
  const fastest = Math.min(...peersMem.map((r) => r.wall))
  const g = []
  g.push(`- Per-turn overhead, memory store, ≥ 3× lower than the fastest peer (${f(fastest)} ms): Bosun ${f(base1.wall)} ms → ${(fastest / base1.wall).toFixed(2)}× — **${fastest / base1.wall >= 3 ? 'met' : 'not met'}**.`)
  const j = fig1['bosun-jsonl']
  if (j.wall) g.push(`- Durable JSONL per-turn lower than every peer's in-memory figure: Bosun JSONL ${f(j.wall)} ms vs fastest peer in memory ${f(fastest)} ms — **${j.wall < fastest ? 'met' : 'not met'}**.`)
  const h100 = fig2[100]?.['bosun-memory'], h10k = fig2[10000]?.['bosun-memory'], h1k = fig2[1000]?.['bosun-memory']
  if (h100?.wall && h10k?.wall) g.push(`- Flat history scaling (≤ 1.2× from 100 to 10,000 messages; ≥ 1,000 turns = 4,000 messages): ${(h10k.wall / h100.wall).toFixed(2)}× (1,000: ${(h1k.wall / h100.wall).toFixed(2)}×) — **${h10k.wall / h100.wall <= 1.2 ? 'met' : 'not met'}**.`)
  const s1k = fig3['1000x10']
  if (s1k) {
    const bosunRate = 1000 / s1k['bosun-memory'].wall
    const best = Math.max(...['pi', 'ai', 'lg-memory'].map((id) => s1k[id].wall ? 1000 / s1k[id].wall : 0))
    g.push(`- Streaming ≥ 10× the peers' deltas per second (1,000 × 10 ch): Bosun ${(bosunRate / best).toFixed(1)}× the best peer — **${bosunRate / best >= 10 ? 'met' : 'not met'}**. Linear in the number of deltas: see the last column (per-delta cost at 1,000 vs 10,000 deltas).`)
  }
  g.push('- 10,000 idle sessions under 1 GiB of heap: see figure 6 below.')
  L.push('### Goals', '', ...g, '')
  L.push('Where Bosun loses (preliminary, from one `node --cpu-prof` run of `child.mjs` on Bosun memory; not verified in isolation): Bosun logs every model chunk as an `assistant/chunk` event, so each delta pays `Session.append` (packages/core/src/session/session.ts) with `toFrozenJson` → `copy` (packages/core/src/json.ts, the largest self-time entry in Bosun code) and the per-chunk loop of `callModel` (packages/core/src/loop/model-call.ts), ~7–8 µs per delta vs ~1.8 µs in pi (which mutates one partial message and emits events). The durable stores pay an awaited flush (write + fdatasync) before each model call (`model-call.ts` `await rt.session.flush()`, and `turn.ts` at step 1): ~1.7 ms per step on this disk, which alone exceeds every in-memory figure of pi. Core was not edited.', '')
  L.push('Not yet implemented here: figure 4 bytes written per step, figure 5 resume, figure 7 concurrency (see the store sections above for Bosun-only resume/append figures).')

  const docPath = join(root, 'docs/benchmarks.md')
  let doc = readFileSync(docPath, 'utf8')
  L.push('', memoryRegion(fig6, elapsedMs, 'pnpm bench'))
  const section = `<!-- peers:start -->\n${L.join('\n')}\n<!-- peers:end -->`
  const re = /<!-- peers:start -->[\s\S]*?<!-- peers:end -->/
  doc = re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n${section}\n`
  writeFileSync(docPath, doc)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => { console.error(error); process.exit(1) })
}
