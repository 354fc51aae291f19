// Figure 5 region: reopening a stored session (Bosun JSONL and SQLite, LangGraph SqliteSaver, and
// a plain JSON.parse of the same JSONL file). `long`: results.json's `long` key, if any.
import { commandLine, longTag, n, region, sp } from './report-common.mjs'

const MB = (b) => (b / 1e6).toFixed(2)
const x = (s, plain) => (plain ? `${(s.median / plain.median).toFixed(1)}×` : '')

export function resumeRegion(fig5, long) {
  const { sizes, reps, longSize, runs, run } = fig5
  const L = ['### Figure 5 — resume: reopening a stored session', '', commandLine(run, 'one child per store, size and round')]
  const lg = long?.fig5Size === longSize && long.fig5 ? long : undefined
  if (lg) L.push(`${lg.fig5['bosun-jsonl'] ? 'Every store' : 'LangGraph'} at ${n(longSize)} events: ${longTag(lg)} (\`node benchmarks/run.mjs --long\`, ${n(lg.run.seconds)} s; child heap limit 8 GiB).`)
  L.push('', `**Protocol** (\`benchmarks/resume-child.mjs\`). The session is built untimed from real turns of the scripted conversation (Bosun: the contender's seed agent on a memory store, ~29 log events and 4 messages per turn). Before the rounds, one untimed child per store and size writes it: Bosun JSONL and SQLite with the store's \`create(header, events)\` (SQLite: a fresh db file, \`batchWindowMs: 0\`); LangGraph: a thread holding the same number of messages (turns × 4), written into a \`SqliteSaver\` db with \`graph.updateState(thread, { messages }, 'agent')\`. Each round then reopens every stored session in a fresh child, R times (median; R = ${sizes.map((s, i) => `${reps[i]} at ${n(s)}`).join(', ')} events; the R reps alternate between the ways timed), after one untimed reopen of an id that does not exist (first-use costs: native addon, first connection) and, where R > 1 (up to 10,000 events), 10 untimed reopens of the stored session by each way: a process that reopens sessions often runs that code compiled and optimised, and in a fresh child every contender took about 8 reopens of ~1,000 events to settle (R = 1: a first reopen in a fresh process, warming up included). Bosun: \`store.open(id)\`, and \`createAgent({ model, store, sessionId })\` (open + the core's rebuild; the model is never called), each on a new store object (SQLite: a new connection) closed afterwards; the floor is a plain \`readFile\` + \`split\` + \`JSON.parse\` of each line of the JSONL file. LangGraph: \`SqliteSaver.fromConnString(file)\` + a new compiled graph + \`graph.getState(thread)\` (asserted to return every message). The files were written minutes before at most: page cache warm, no cold-disk reads. Cells: median over rounds, (min–max). pi-agent-core and the AI SDK have no stored session to reopen (pi: no persistence; AI SDK: the caller keeps its messages) — not run; the plain-JSON.parse row is what a user of either would pay to reload the same conversation from a JSON file of Bosun's events (their message-only files would be smaller).`, '')
  L.push('| events (messages) | reopened by | stored MB | ms (spread) | ÷ plain JSON.parse |', '|---|---|---:|---:|---:|')
  for (const size of sizes) {
    // The largest size from the --long run, store by store (an older --long run measured LangGraph only).
    const pick = (id) => (lg && size === longSize && lg.fig5[id] ? [lg.fig5[id], ` (${longTag(lg)})`] : [runs[size][id], ''])
    const [b, bTag] = pick('bosun-jsonl'), [s, sTag] = pick('bosun-sqlite'), [g, gTag] = pick('lg-sqlite')
    if (![b, s, g].some((r) => r?.ok) && [b, s, g].every((r) => r?.long)) {
      // Deferred to --long and not measured there yet: one line, not six repeating the reason.
      L.push(`| ~${n(size)} | every store | | not run: in the \`--long\` run only; filled by \`node benchmarks/run.mjs --long\` | |`)
      continue
    }
    const plain = b?.ok ? b.plainMs : undefined
    const rows = []
    const add = (label, r, bytes, ms) => rows.push(r?.ok ? [label, bytes === undefined ? '' : MB(bytes), sp(ms(r)), x(ms(r), plain)] : [label, '', `not run: ${r?.reason ?? 'no result'}`, ''])
    add(`plain \`readFile\` + \`JSON.parse\` per line of the JSONL file${bTag}`, b, b?.bytes, (r) => r.plainMs)
    add(`Bosun JSONL \`store.open\`${bTag}`, b, undefined, (r) => r.openMs)
    add(`Bosun JSONL \`createAgent\`${bTag}`, b, undefined, (r) => r.createAgentMs)
    add(`Bosun SQLite \`store.open\`${sTag}`, s, s?.bytes, (r) => r.openMs)
    add(`Bosun SQLite \`createAgent\`${sTag}`, s, undefined, (r) => r.createAgentMs)
    add(`LangGraph SqliteSaver \`getState\`${gTag}`, g, g?.bytes, (r) => r.getStateMs)
    const head = b?.ok ? `${n(b.events)} (${n(b.messages)})` : `~${n(size)}`
    rows.forEach((row, i) => L.push(`| ${i === 0 ? head : ''} | ${row.join(' | ')} |`))
  }
  const ok = sizes.map((s) => [s, lg && s === longSize && lg.fig5['bosun-jsonl'] ? lg.fig5['bosun-jsonl'] : runs[s]['bosun-jsonl']]).filter(([, r]) => r?.ok)
  L.push('', `**Notes.** (1) Sizes are whole turns: ${ok.map(([s, r]) => `${n(s)} events = ${n(r.events)} (${n(r.messages / 4)} turns)`).join(', ')}. (2) LangGraph's checkpoint holds messages only (no per-chunk events)${ok[0] ? `; Bosun's log has ~${(ok[0][1].events / ok[0][1].messages).toFixed(1)} events per message` : ''}. (3) The Bosun SQLite db holds that one session; stored MB = the db + \`-wal\` as reopened. (4) Every store at ${n(longSize)} events is left to \`node benchmarks/run.mjs --long\` (an 8 GiB heap and a time limit per child; if one cannot finish, its cell says where it stopped): writing and reopening them took about 2 of the default run's 10 minutes, and section 3 times Bosun's own ${n(longSize)}-event opens on every \`pnpm bench\`.`)
  return region('resume', L)
}
