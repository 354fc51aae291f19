// Dev aid (docs/benchmarks.md, "SQLite: WAL bytes per turn"): WAL bytes one agent turn costs under
// candidate table layouts and page sizes, with better-sqlite3 directly (WAL, synchronous=FULL,
// autocheckpoint off, so the -wal file only grows). A turn is the commits the SQLite store makes
// for the benchmark conversation (figure 4): 6, 5 and 4 events at the three flushes, then the
// tail of 14 (11 of them text deltas); event data of the measured sizes. Layouts:
//   rows     layout 1: one row per event, WITHOUT ROWID, PRIMARY KEY (session_id TEXT, seq)
//   packed   the same, a run of chunk events of one commit in one row
//   rowidx   one row per event in a rowid table with a (session_id, seq) index
//   ikey     one row per event, rowid = (session key << 32) | seq, no index
//   ikeypk   ikey with chunk runs packed (layout 2)
//   batch    one row per commit holding its JSONL lines, WITHOUT ROWID (session_id, seq)
//   node benchmarks/wal-layouts.mjs [turns=200] [sessions=1]   (sessions > 1: their turns interleaved, one commit per session)
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const USAGE = 'usage: node benchmarks/wal-layouts.mjs [turns=200] [sessions=1]'
const argv = process.argv.slice(2)
if (argv.includes('--help') || argv.includes('-h')) { console.log(USAGE); process.exit(0) }
if (argv.length > 2 || argv.some((a) => !/^[1-9]\d*$/.test(a))) { console.error(USAGE); process.exit(2) }
const [turns, sessions] = [Number(argv[0] ?? 200), Number(argv[1] ?? 1)]
const Database = createRequire(new URL('../packages/plugins/store-sqlite/package.json', import.meta.url))('better-sqlite3')

const TURN = [
  [['agent/inbox/spliced', 173], ['turn/start', 10], ['agent/inbox/spliced', 63], ['step/start', 19], ['user/message', 127], ['request/header', 73]],
  [['assistant/chunk', 94], ['assistant/chunk', 99], ['assistant/chunk', 67], ['assistant/message', 143], ['tool/call', 83]],
  [['tool/result', 101], ['step/end', 41], ['step/start', 19], ['request/header', 73]],
  [...Array(11).fill(['assistant/chunk', 69]), ['assistant/message', 188], ['step/end', 35], ['turn/end', 40]],
]
const data = (n) => JSON.stringify({ x: 'y'.repeat(Math.max(0, n - 8)) })
/** Consecutive chunk events of a commit, as [first index, events]. */
function runs(batch) {
  const out = []
  for (let i = 0; i < batch.length; ) {
    let j = i + 1
    if (batch[i][0] === 'assistant/chunk') while (j < batch.length && batch[j][0] === 'assistant/chunk') j++
    out.push([i, batch.slice(i, j)])
    i = j
  }
  return out
}

const LAYOUTS = {
  rows: { ddl: 'CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT, PRIMARY KEY (session_id, seq)) WITHOUT ROWID', packed: false, sql: 'INSERT INTO events VALUES (?, ?, 1700000000000, ?, ?, NULL)', args: (s, seq, type, d) => [`s${s}`, seq, type, d] },
  packed: { ddl: 'CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT, PRIMARY KEY (session_id, seq)) WITHOUT ROWID', packed: true, sql: 'INSERT INTO events VALUES (?, ?, 1700000000000, ?, ?, NULL)', args: (s, seq, type, d) => [`s${s}`, seq, type, d] },
  rowidx: { ddl: 'CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT, PRIMARY KEY (session_id, seq))', packed: false, sql: 'INSERT INTO events VALUES (?, ?, 1700000000000, ?, ?, NULL)', args: (s, seq, type, d) => [`s${s}`, seq, type, d] },
  ikey: { ddl: 'CREATE TABLE events (key INTEGER PRIMARY KEY, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT, count INTEGER NOT NULL DEFAULT 1)', packed: false, sql: 'INSERT INTO events (key, time, type, data) VALUES ((? << 32) | ?, 1700000000000, ?, ?)', args: (s, seq, type, d) => [s + 1, seq, type, d] },
  ikeypk: { ddl: 'CREATE TABLE events (key INTEGER PRIMARY KEY, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT, count INTEGER NOT NULL DEFAULT 1)', packed: true, sql: 'INSERT INTO events (key, time, type, data, count) VALUES ((? << 32) | ?, 1700000000000, ?, ?, ?)', args: (s, seq, type, d, n) => [s + 1, seq, type, d, n] },
  batch: { ddl: 'CREATE TABLE batches (session_id TEXT NOT NULL, seq INTEGER NOT NULL, lines TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID', whole: true, sql: 'INSERT INTO batches VALUES (?, ?, ?)' },
}

function measure(name, pageSize) {
  const layout = LAYOUTS[name]
  const dir = mkdtempSync(join(tmpdir(), 'bosun-wal-layouts-'))
  const file = join(dir, 'db')
  const db = new Database(file)
  try {
    db.pragma(`page_size = ${pageSize}`)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('wal_autocheckpoint = 0')
    db.exec(layout.ddl)
    const insert = db.prepare(layout.sql)
    const seqs = new Array(sessions).fill(0)
    const commit = (s, batch) => db.transaction(() => {
      const seq = seqs[s]
      if (layout.whole) insert.run(`s${s}`, seq, batch.map(([type, len], i) => `{"seq":${seq + i},"time":1700000000000,"type":"${type}","data":${data(len)}}\n`).join(''))
      else if (layout.packed) for (const [i, run] of runs(batch)) insert.run(...layout.args(s, seq + i, run[0][0], run.length === 1 ? data(run[0][1]) : `[${run.map(([, len]) => data(len)).join(',')}]`, run.length))
      else batch.forEach(([type, len], i) => insert.run(...layout.args(s, seq + i, type, data(len), 1)))
      seqs[s] += batch.length
    }).immediate()
    const turn = () => { for (const batch of TURN) for (let s = 0; s < sessions; s++) commit(s, batch) }
    for (let t = 0; t < 10; t++) turn() // past the first pages
    const before = statSync(`${file}-wal`).size
    for (let t = 0; t < turns; t++) turn()
    return (statSync(`${file}-wal`).size - before) / (turns * sessions)
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log(`node benchmarks/wal-layouts.mjs ${turns} ${sessions}: WAL bytes per turn (frames of page + 24 B)`)
console.log(`| layout | ${[4096, 2048, 1024].map((p) => `${p} B pages`).join(' | ')} |`)
console.log('|---|---:|---:|---:|')
for (const name of Object.keys(LAYOUTS)) {
  console.log(`| ${name} | ${[4096, 2048, 1024].map((p) => { const b = measure(name, p); return `${Math.round(b).toLocaleString('en')} (${(b / (p + 24)).toFixed(1)})` }).join(' | ')} |`)
}
