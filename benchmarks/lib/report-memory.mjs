// Figure 6 region: heap per idle session (one round: heap after GC is near-deterministic).
import { commandLine, kb, mb, n, region } from './report-common.mjs'
import { MEMORY } from './plan.mjs'

const GIB = 2 ** 30
const HOLDS = {
  'bosun-memory': 'an agent from `createAgent` (its own `memoryStore()`, model adapter instance, session with the event log: the EVENTS), loaded from its own copy of the log',
  pi: 'a pi `Agent` (state: its own copy of the messages, tools, model; its own stream function)',
  ai: 'the caller\'s `ModelMessage[]` (own copy); model and tools shared — the AI SDK keeps no session object',
  'lg-memory': 'a thread in ONE shared compiled `createReactAgent` graph + ONE shared `MemorySaver`: the thread\'s checkpoints and pending writes (history loaded with `graph.updateState(..., \'agent\')`, no model call)',
}

export function memoryRegion(fig6) {
  const { prior, loadedSessions, idleSessions, loaded, idle, run } = fig6
  const events = loaded['bosun-memory']?.logEvents
  const L = ['### Figure 6 — memory: heap per idle session', '', commandLine(run, 'one child per contender and configuration, run with `--expose-gc`', ' (heap after GC is near-deterministic)'), '']
  L.push(`**Protocol** (\`benchmarks/memory-child.mjs\`, the contenders' \`idle()\`). A session holds ${prior} prior messages (${prior / 4} turns of the scripted conversation), each session its own copy (parsed from JSON, as if loaded from disk; Bosun's then frozen as its JSONL store decodes a file, short strings shared: \`lib/stored-log.mjs\`). The child loads the contender, builds and drops 3 warm-up sessions, reads \`process.memoryUsage()\` after \`global.gc()\` ×2 (baseline), builds N sessions and keeps them all referenced, reads it again after \`gc\`. Per session = (after − baseline) ÷ N. *Loaded*: N = ${n(loadedSessions)}, each session loaded then ran ONE real turn (tool call + 10 deltas), then idle. *Idle*: N = ${idleSessions ? n(idleSessions) : '—'}, loaded only (no turn). "Off-heap" = \`arrayBuffers\` (LangGraph's \`MemorySaver\` stores checkpoints serialized in \`Uint8Array\`s, outside \`heapUsed\`). Total heapUsed includes the process baseline (modules, framework, shared graph).`, '')
  L.push(`| contender | one idle session is | loaded (${n(loadedSessions)}, +1 turn): KiB heap / session | off-heap KiB / session | ${idleSessions ? n(idleSessions) : 'no'} idle: total heapUsed MiB | KiB heap / session | off-heap KiB / session | build time s |`, '|---|---|---:|---:|---:|---:|---:|---:|')
  for (const c of MEMORY) {
    const a = loaded[c.id], b = idle?.[c.id]
    const la = a?.ok ? [kb(a.perSession.heapUsed), kb(a.perSession.arrayBuffers)] : [`not run: ${a?.reason}`, '']
    const lb = !b ? ['—', '—', '—', '—'] : b.ok ? [mb(b.heap.heapUsed), kb(b.perSession.heapUsed), kb(b.perSession.arrayBuffers), (b.buildMs / 1000).toFixed(1)] : [`not run: ${b.reason}`, '', '', '']
    const holds = (HOLDS[c.id] ?? '').replace('the EVENTS', `the ${prior} messages are ${events ? n(events) : '?'} log events incl. chunk/step/turn events`)
    L.push(`| ${c.label} | ${holds} | ${la.join(' | ')} | ${lb.join(' | ')} |`)
  }
  const b = idle?.['bosun-memory']
  L.push('')
  if (b?.ok) {
    const met = idleSessions >= 10_000 && b.heap.heapUsed + b.heap.arrayBuffers < GIB
    L.push(`Goal — 10,000 idle Bosun sessions under 1 GiB of heap: ${n(idleSessions)} sessions, total heapUsed ${mb(b.heap.heapUsed)} MiB (${(b.heap.heapUsed / GIB).toFixed(2)} GiB; RSS ${mb(b.rss)} MiB) — **${met ? 'met' : 'not met'}**; ${((1 - b.heap.heapUsed / GIB) * 100).toFixed(0)}% headroom.`)
  } else L.push('Goal — 10,000 idle Bosun sessions under 1 GiB of heap: **not measured** in this run.')
  L.push('', '**Notes.** (1) The sessions do not hold the same thing: a Bosun session keeps its whole event log (every model delta is an `assistant/chunk` event, plus step/turn markers), the peers keep messages only; an idle Bosun session keeps the events before its last `turn/end` as sealed pages, deflated off the heap (the off-heap columns; the child calls `sealIdleSessions()` before it measures, instead of waiting the 30 s idle time: docs/architecture.md, "Sealed log pages"). Compare Bosun\'s heap plus off-heap with the peers\' heap. (2) LangGraph\'s `MemorySaver` keeps checkpoints serialized off-heap and retains every checkpoint of a thread (one per super-step). Its per-session figures exclude the shared compiled graph (in the baseline); one graph per session, as figures 1–3 build it, was not measured. (3) *Loaded* includes one turn (4 more messages; for Bosun ~30 more events). (4) Only the Bosun memory store is measured: idle sessions on the JSONL/SQLite stores are not. Idle = no subscribers and not closed; nothing runs.')
  return region('memory', L)
}
