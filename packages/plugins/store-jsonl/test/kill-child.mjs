// A writer for the SIGKILL test (src/journal-kill.test.ts), run as a child process on the BUILT
// package and killed at a random moment:  node kill-child.mjs <dir> <sessions> <seed>
// Opens (or creates) the sessions with the store journal on — opening replays what the previous
// kill left — prints `OPENED <id> <events> <bytes>` for each, then appends to all of them at once forever,
// printing `ACK <id> <seq>` once a flush covering event <seq> has resolved (durable: it must
// survive). Output is written synchronously: nothing is buffered when the SIGKILL lands.
import { statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { jsonlStore } from '../dist/index.js'

const [dir, sessionsText, seedText] = process.argv.slice(2)
let seed = Number(seedText) >>> 0
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
/** The content of event `seq` of session `id`: the checker recomputes it. Some are large, so that the journal reaches its checkpoint size. */
export const payload = (id, seq) => `${id}:${seq}:` + 'x'.repeat((seq * 7919) % 40_000)

const store = jsonlStore({ dir, batchWindowMs: 0, journal: true })
const say = (line) => writeSync(1, `${line}\n`)
const ids = Array.from({ length: Number(sessionsText) }, (_, i) => `k${i}`)
const sessions = []
for (const id of ids) {
  const opened = (await store.open(id)) ?? (await store.create({ id, version: 1, createdAt: 1_700_000_000_000 }))
  say(`OPENED ${id} ${opened.events.length} ${statSync(join(dir, `${id}.jsonl`)).size}`)
  sessions.push({ id, writer: opened.writer, next: opened.events.length })
}
say('READY')
await Promise.all(sessions.map(async (s) => {
  for (;;) {
    const count = 1 + Math.floor(random() * 3)
    for (let i = 0; i < count; i++, s.next++) {
      s.writer.append({ seq: s.next, time: 1_700_000_000_000 + s.next, type: 'test/kill', data: { text: payload(s.id, s.next) } })
    }
    const last = s.next - 1
    await s.writer.flush()
    say(`ACK ${s.id} ${last}`)
  }
}))
