// A writer in another process for src/list-while-written.test.ts, on the BUILT package:
//   node summary-child.mjs <file> <id> <events.json> <per batch> <batches per open>
// Appends the events of <events.json> to session <id> (created by the test) in batches of
// <per batch> (a flush each), closing its store and opening the session again after every
// <batches per open> batches (a new writer, a new connection), then prints `DONE <events>` and
// exits. The test lists the store meanwhile.
import { readFileSync, writeSync } from 'node:fs'
import { sqliteStore } from '../dist/index.js'

const [file, id, eventsFile, perBatchText, perOpenText] = process.argv.slice(2)
const toWrite = JSON.parse(readFileSync(eventsFile, 'utf8'))
const perBatch = Number(perBatchText)
const perOpen = Number(perOpenText)
let written = 0
while (written < toWrite.length) {
  const store = sqliteStore({ file, batchWindowMs: 0 })
  const { events, writer } = await store.open(id)
  if (events.length !== toWrite[written].seq) throw new Error(`the session has ${events.length} events, the next to write is ${toWrite[written].seq}`)
  for (let batch = 0; batch < perOpen && written < toWrite.length; batch++) {
    for (const event of toWrite.slice(written, written + perBatch)) writer.append(event)
    written = Math.min(written + perBatch, toWrite.length)
    await writer.flush()
  }
  await store.close()
}
writeSync(1, `DONE ${toWrite[toWrite.length - 1].seq + 1}\n`)
