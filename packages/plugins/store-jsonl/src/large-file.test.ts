// A session file past V8's string limit (~512 MB) still opens: the reader decodes it in slices.
// The default run writes a small file; `pnpm test:large` writes BOSUN_LARGE_SESSION_MB (600) of it.
import { closeSync, openSync, statSync, writeSync } from 'node:fs'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { HEADER_MARKER } from './format.js'
import { jsonlStore } from './store.js'
import { sessionFile } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const megabytes = Number(process.env.BOSUN_LARGE_SESSION_MB ?? '4')

it(`opens a ${megabytes} MB session file with every event, in order`, async () => {
  const id = 'large'
  const text = 'x'.repeat(2_000)
  const count = Math.ceil((megabytes * 1_000_000) / 2_060)
  const fd = openSync(sessionFile(dir, id), 'w')
  writeSync(fd, `${JSON.stringify({ bosun: HEADER_MARKER, version: 1, id, createdAt: 1 })}\n`)
  for (let seq = 0; seq < count; seq += 1_000) {
    const lines: string[] = []
    for (let n = seq; n < Math.min(count, seq + 1_000); n++) lines.push(JSON.stringify({ seq: n, time: n, type: 'test/value', data: { n, text } }))
    writeSync(fd, `${lines.join('\n')}\n`)
  }
  closeSync(fd)
  expect(statSync(sessionFile(dir, id)).size).toBeGreaterThan(megabytes * 1_000_000)
  const store = jsonlStore({ dir })
  const opened = (await store.open(id))!
  expect(opened.events).toHaveLength(count)
  for (let seq = 0; seq < count; seq += Math.max(1, Math.floor(count / 1_000))) {
    expect(opened.events[seq]).toMatchObject({ seq, data: { n: seq } })
  }
  expect(opened.events[count - 1]).toMatchObject({ seq: count - 1, data: { n: count - 1, text } })
  await store.close()
}, 600_000)
