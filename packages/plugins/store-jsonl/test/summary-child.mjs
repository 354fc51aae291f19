// A writer in another process for src/summary-file.test.ts, on the BUILT package:
//   node summary-child.mjs <dir> <id> <events.json> <per batch>
// Opens session <id> (created by the test), appends the events of <events.json> in batches of
// <per batch> (a flush each), closes the store, prints `DONE <events>` and exits. The test lists
// the store meanwhile.
import { readFileSync, writeSync } from 'node:fs'
import { jsonlStore } from '../dist/index.js'

const [dir, id, eventsFile, perBatchText] = process.argv.slice(2)
const toWrite = JSON.parse(readFileSync(eventsFile, 'utf8'))
const perBatch = Number(perBatchText)
const store = jsonlStore({ dir, batchWindowMs: 0 })
const { events, writer } = await store.open(id)
if (events.length !== toWrite[0].seq) throw new Error(`the session has ${events.length} events, the first to write is ${toWrite[0].seq}`)
for (let start = 0; start < toWrite.length; start += perBatch) {
  for (const event of toWrite.slice(start, start + perBatch)) writer.append(event)
  await writer.flush()
}
await store.close()
writeSync(1, `DONE ${events.length + toWrite.length}\n`)
