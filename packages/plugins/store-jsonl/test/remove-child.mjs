// A process for the SIGKILL test of remove() (src/remove-kill.test.ts), run on the BUILT package
// and killed once it has printed READY:  node remove-child.mjs <dir> <mode>
// Session "s" always has the same header, so a record of the removed one would fit the new one.
//   remove: writes 3 events to "s" (flushed), closes it, removes it, creates it again and writes
//           1 event (flushed) — all through the store journal, which is never checkpointed or closed.
//   hold:   writes 3 events to "s" (flushed) and closes it: the lock is free, the journal keeps the
//           records until this store closes, which it never does.
import { writeSync } from 'node:fs'
import { jsonlStore } from '../dist/index.js'

const [dir, mode] = process.argv.slice(2)
const header = { id: 's', version: 1, createdAt: 1_700_000_000_000 }
const event = (seq) => ({ seq, time: 1_700_000_000_000 + seq, type: 'test/remove', data: { text: `event ${seq}` } })

const store = jsonlStore({ dir, batchWindowMs: 10_000, journal: true })
const first = await store.create(header)
for (let seq = 0; seq < 3; seq++) first.writer.append(event(seq))
await first.writer.flush()
await first.writer.close()
if (mode === 'remove') {
  if ((await store.remove('s')) !== true) throw new Error('not removed')
  const again = await store.create(header)
  again.writer.append(event(0))
  await again.writer.flush()
}
writeSync(1, 'READY\n')
setInterval(() => {}, 60_000)
