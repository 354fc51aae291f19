// list()'s summaries (summary-file.ts): a sidecar beside each log and a bounded tail of the log,
// and every way a sidecar can be wrong falls back to a full read with the same answer.
import { spawn } from 'node:child_process'
import { appendFile, copyFile, mkdir, readFile, rename, stat, symlink, truncate, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createUserMessage, summarizeLog } from '@bosun/core'
import type { SessionEvent, SessionSummary } from '@bosun/core'
import type { StoreFileSystem } from './file-system.js'
import { crc32 } from './journal-format.js'
import { jsonlStore } from './store.js'
import { SUMMARY_EVERY_BYTES, summaryPath } from './summary-file.js'
import { header, sessionFile } from './testing/fixtures.js'
import { countingFs } from './testing/counting-fs.js'
import { tempDir } from './testing/recording-fs.js'
import { copyStoreFiles } from './testing/crash-image.js'
import { validLengthPath } from './valid-length.js'

const CHILD = fileURLToPath(new URL('../test/summary-child.mjs', import.meta.url))

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

/** `count` events from seq `from` that move every list field, some large; event `seq` is always the same. */
function logEvents(from: number, count: number): SessionEvent[] {
  const events: SessionEvent[] = []
  for (let seq = from; seq < from + count; seq++) {
    const text = `message ${seq} ✓ "q" ` + 'x'.repeat((seq * 7919) % 3000)
    const kinds: [string, object][] = [
      ['turn/start', { turn: seq / 5 + 1 }],
      ['user/message', createUserMessage(text, { id: `u${seq}`, source: { kind: seq % 2 === 0 ? 'user' : 'agent' } })],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [createUserMessage(text, { id: `q${seq}` })] }],
      // Every other one queues into next-step instead: both queues' counts move.
      seq % 10 === 3
        ? ['agent/inbox/spliced', { target: 'next-step', start: 0, inserted: [createUserMessage(text, { id: `s${seq}` })] }]
        : ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: seq % 3 === 0 ? 1 : 0, inserted: [] }],
      ['test/value', { text }],
    ]
    const [type, data] = kinds[seq % 5]!
    events.push(Object.freeze({ seq, time: 1_700_000_000_000 + seq * 1000, type, data }) as SessionEvent)
  }
  return events
}

/** Creates `id` and writes `events` in batches of `perBatch` (a flush each), then closes it. */
async function written(id: string, events: readonly SessionEvent[], perBatch = 10, fs?: StoreFileSystem): Promise<void> {
  const store = jsonlStore({ dir, batchWindowMs: 0, ...(fs ? { fs } : {}) })
  const stored = (await store.open(id)) ?? (await store.create(header(id)))
  for (let start = 0; start < events.length; start += perBatch) {
    for (const event of events.slice(start, start + perBatch)) stored.writer.append(event)
    await stored.writer.flush()
  }
  await store.close()
}

const FIELDS = ['length', 'lastActivity', 'turns', 'firstPrompt', 'pending', 'queued'] as const
const fieldsOf = (entry: SessionSummary | undefined) => entry && (Object.fromEntries(FIELDS.map((field) => [field, entry[field]])) as Pick<SessionSummary, (typeof FIELDS)[number]>)

/** Session `id`'s list fields, from a fresh store. */
async function listed(id: string, fs?: StoreFileSystem) {
  const store = jsonlStore({ dir, ...(fs ? { fs } : {}) })
  try {
    return fieldsOf((await store.list()).find((entry) => entry.id === id))
  } finally {
    await store.close()
  }
}

/** What a full read of session `id` summarises to (read(): the valid length, a torn tail left out). */
async function fullRead(id: string) {
  const store = jsonlStore({ dir })
  try {
    const log = (await store.read!(id))!
    return summarizeLog(log.header, log.events)
  } finally {
    await store.close()
  }
}

const sidecar = (id: string) => summaryPath(sessionFile(dir, id))
const kept = async (id: string) => JSON.parse(await readFile(sidecar(id), 'utf8')) as { byteOffset: number; fold: { length: number } }

describe('list() from the summaries', () => {
  it('reads a bounded tail of a long log, written by a live writer, and gives what a full read gives', async () => {
    await written('s', logEvents(0, 1500))
    const store = jsonlStore({ dir, batchWindowMs: 0 })
    const live = (await store.open('s'))!
    for (const event of logEvents(1500, 40)) live.writer.append(event)
    await live.writer.flush()
    const size = (await stat(sessionFile(dir, 's'))).size
    expect(size).toBeGreaterThan(20 * SUMMARY_EVERY_BYTES)
    const fs = countingFs()
    expect(await listed('s', fs)).toEqual(await fullRead('s'))
    // The header and the tail past the sidecar: at most the threshold and a batch, whatever the log's length.
    expect(fs.logBytes).toBeLessThan(2 * SUMMARY_EVERY_BYTES)
    await store.close()
    // Without its sidecar the same log is read whole (what the bound above is measured against).
    await unlink(sidecar('s'))
    const whole = countingFs()
    expect(await listed('s', whole)).toEqual(await fullRead('s'))
    expect(whole.logBytes).toBeGreaterThanOrEqual(size)
  })

  it('the writer writes a sidecar every SUMMARY_EVERY_BYTES of log and at close, not per batch', async () => {
    const fs = countingFs()
    await written('s', logEvents(0, 1000), 5, fs)
    const size = (await stat(sessionFile(dir, 's'))).size
    // 200 batches; one sidecar per 64 KiB (each written off the batch path) and one at close.
    expect(fs.renames).toBeGreaterThan(1)
    expect(fs.renames).toBeLessThanOrEqual(Math.ceil(size / SUMMARY_EVERY_BYTES) + 1)
    expect((await kept('s')).byteOffset).toBe(size)
    expect((await kept('s')).fold.length).toBe(1000)
  })

  it('a sidecar that cannot be written is tried again after another SUMMARY_EVERY_BYTES of log, not at every batch', async () => {
    // The folder refuses new files (a read-only folder, a full quota): here, every rename fails.
    const fs = countingFs()
    fs.rename = async () => {
      fs.renames++
      throw Object.assign(new Error('EACCES: permission denied, rename'), { code: 'EACCES' })
    }
    await written('s', logEvents(0, 1000), 5, fs)
    const size = (await stat(sessionFile(dir, 's'))).size
    // 200 batches: one attempt per 64 KiB of log (each reads up to 64 KiB of it back) and one at close.
    expect(fs.renames).toBeGreaterThan(1)
    expect(fs.renames).toBeLessThanOrEqual(Math.ceil(size / SUMMARY_EVERY_BYTES) + 1)
    // A cache: the log is whole and listed from a full read.
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await fullRead('s')).length).toBe(1000)
  })

  it('a stale sidecar (an older one) is folded on from: the same fields', async () => {
    await written('s', logEvents(0, 100))
    const old = await readFile(sidecar('s'))
    await written('s', logEvents(100, 50))
    await writeFile(sidecar('s'), old)
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await listed('s'))?.length).toBe(150)
  })

  it('a sidecar an earlier build wrote with the whole first prompt is used, its first prompt read as the preview a full read gives', async () => {
    const whole = `${'w'.repeat(5_000)} the end`
    const first = Object.freeze({ seq: 0, time: 1_700_000_000_000, type: 'user/message', data: createUserMessage(whole, { id: 'u' }) }) as SessionEvent
    await written('s', [first, ...logEvents(1, 60)])
    const saved = JSON.parse(await readFile(sidecar('s'), 'utf8')) as { fold: { firstPrompt?: string } }
    expect(saved.fold.firstPrompt).toBe(`${'w'.repeat(199)}…`)
    await writeFile(sidecar('s'), JSON.stringify({ ...saved, fold: { ...saved.fold, firstPrompt: whole } }))
    const fs = countingFs()
    expect(await listed('s', fs)).toEqual(await fullRead('s'))
    expect((await listed('s'))?.firstPrompt).toBe(`${'w'.repeat(199)}…`)
    // From the sidecar, not a full read.
    expect(fs.logBytes).toBeLessThan((await stat(sessionFile(dir, 's'))).size / 2)
  })

  it.each([
    ['torn JSON', (text: string) => text.slice(0, text.length / 2)],
    ['a newer format', (text: string) => text.replace('"format":2', '"format":3')],
    ['this format with a fold of the earlier one', (text: string) => text.replace(/"queued":\[\d+,\d+\]/, '"pending":3')],
    ['the earlier format with a fold of this one', (text: string) => text.replace('"format":2', '"format":1')],
    ['a fold that is not one', (text: string) => text.replace(/"fold":\{[^}]*\}/, '"fold":{"length":"many"}')],
    ['another file\'s header crc', (text: string) => text.replace(/"headerCrc":\d+/, '"headerCrc":1')],
    ['an offset past the end', (text: string) => text.replace(/"byteOffset":(\d+)/, (_, n: string) => `"byteOffset":${Number(n) + 1_000_000}`)],
    ['an offset inside a line', (text: string) => text.replace(/"byteOffset":(\d+)/, (_, n: string) => `"byteOffset":${Number(n) - 10}`)],
  ])('a damaged sidecar (%s) is not used: a full read, the same fields', async (_, damage) => {
    await written('s', logEvents(0, 60))
    await writeFile(sidecar('s'), damage(await readFile(sidecar('s'), 'utf8')))
    const fs = countingFs()
    expect(await listed('s', fs)).toEqual(await fullRead('s'))
    expect(fs.logBytes).toBeGreaterThanOrEqual((await stat(sessionFile(dir, 's'))).size)
  })

  it('a format-1 sidecar (before per-queue counts) is folded on from for the fields it has, listed without queued, until the writer writes format 2', async () => {
    await written('s', logEvents(0, 600))
    // The sidecar as the build before per-queue counts wrote it (c918929): format 1, the fold's
    // pending total (inserted minus removed: the sum of the queues for a log the inbox replays), no queued.
    const current = JSON.parse(await readFile(sidecar('s'), 'utf8')) as { byteOffset: number; lineStart: number; headerCrc: number; check: number; fold: Record<string, unknown> }
    const { length, lastActivity, turns, queued, seedLength, ...previews } = current.fold as { queued: [number, number] } & Record<string, unknown>
    const fold = { length, lastActivity, turns, pending: queued[0] + queued[1], seedLength, ...previews }
    const earlier = { bosun: 'summary', format: 1, headerCrc: current.headerCrc, byteOffset: current.byteOffset, lineStart: current.lineStart, check: current.check, fold }
    // The log goes on past it: turns, prompts and splices (pending moves) the tail alone holds.
    await written('s', logEvents(600, 60))
    await writeFile(sidecar('s'), JSON.stringify(earlier))
    const size = (await stat(sessionFile(dir, 's'))).size
    const full = await fullRead('s')
    expect(full.pending).not.toBe(fold.pending)
    expect(full.turns).not.toBe(turns)

    const fs = countingFs()
    const store = jsonlStore({ dir, fs })
    const entry = (await store.list()).find((e) => e.id === 's')!
    await store.close()
    // Only the tail past its offset (and the header and the line it checks): not the whole log.
    expect(fs.logBytes).toBeLessThan(size - earlier.byteOffset + SUMMARY_EVERY_BYTES)
    expect(fs.logBytes).toBeLessThan(size / 4)
    const { queued: _, ...counted } = full
    expect(fieldsOf(entry)).toEqual({ ...counted, queued: undefined })
    // No queued at all (never a guessed split): a reader that needs the counts reads the log.
    expect(entry).not.toHaveProperty('queued')

    // The session's writer (its fold from a full read at open) writes format 2 with the counts.
    const writer = jsonlStore({ dir })
    await (await writer.open('s'))!.writer.close()
    await writer.close()
    const rewritten = JSON.parse(await readFile(sidecar('s'), 'utf8')) as { format: number; byteOffset: number; fold: { queued?: unknown; pending?: unknown } }
    expect(rewritten).toMatchObject({ format: 2, byteOffset: size, fold: { queued: [full.queued['next-turn'], full.queued['next-step']] } })
    expect(rewritten.fold).not.toHaveProperty('pending')
    const after = countingFs()
    expect(await listed('s', after)).toEqual(full)
    expect(after.logBytes).toBeLessThan(SUMMARY_EVERY_BYTES)
  })

  it('an offset moved to another line boundary, its fold kept, is caught by the crc of the bytes before it', async () => {
    await written('s', logEvents(0, 60))
    const old = await readFile(sidecar('s'))
    await written('s', logEvents(60, 5))
    const next = JSON.parse(await readFile(sidecar('s'), 'utf8')) as Record<string, unknown>
    // The newer offset with the older fold: a sidecar that lies about where its events end.
    await writeFile(sidecar('s'), JSON.stringify({ ...JSON.parse(old.toString('utf8')), byteOffset: next.byteOffset }))
    expect(await listed('s')).toEqual(await fullRead('s'))
  })

  it('a link or a folder in the sidecar\'s place is not followed or read', async () => {
    await written('a', logEvents(0, 40))
    await written('b', logEvents(0, 20))
    await unlink(sidecar('b'))
    await symlink(sidecar('a'), sidecar('b'))
    expect(await listed('b')).toEqual(await fullRead('b'))
    await unlink(sidecar('b'))
    await mkdir(sidecar('b'))
    expect(await listed('b')).toEqual(await fullRead('b'))
  })

  it('a torn tail after the sidecar (a crash mid-append: half a line, NUL bytes) is left out, as a full read leaves it', async () => {
    await written('s', logEvents(0, 30))
    const whole = logEvents(30, 2).map((event) => JSON.stringify(event) + '\n').join('')
    await appendFile(sessionFile(dir, 's'), whole + whole.slice(0, 40))
    // Two whole lines past the sidecar, then the start of a line again: torn, left out.
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await listed('s'))?.length).toBe(32)
    await appendFile(sessionFile(dir, 's'), Buffer.alloc(4096))
    expect(await listed('s')).toEqual(await fullRead('s'))
  })

  it('a damaged line after the sidecar: listed without the fields (read() says what is wrong)', async () => {
    await written('s', logEvents(0, 30))
    await appendFile(sessionFile(dir, 's'), 'not json\n' + JSON.stringify(logEvents(30, 1)[0]) + '\n')
    const store = jsonlStore({ dir })
    expect((await store.list()).find((entry) => entry.id === 's')).toEqual({ id: 's', createdAt: header('s').createdAt, delegation: null })
    await expect(store.read!('s')).rejects.toMatchObject({ code: 'CORRUPT_LOG' })
    await store.close()
  })

  it('a crash between the sidecar\'s temporary file and its rename: the older sidecar is used, the next writer replaces both', async () => {
    await written('s', logEvents(0, 50))
    await writeFile(`${sidecar('s')}.tmp`, '{"bosun":"summ')
    await appendFile(sessionFile(dir, 's'), logEvents(50, 3).map((event) => JSON.stringify(event) + '\n').join(''))
    expect(await listed('s')).toEqual(await fullRead('s'))
    await written('s', logEvents(53, 2))
    expect((await kept('s')).fold.length).toBe(55)
    await expect(stat(`${sidecar('s')}.tmp`)).rejects.toMatchObject({ code: 'ENOENT' })
    expect(await listed('s')).toEqual(await fullRead('s'))
  })

  it('a sidecar renamed but the log\'s last bytes lost (a crash before they reached the disk): a full read', async () => {
    await written('s', logEvents(0, 50))
    const { byteOffset } = await kept('s')
    // The log cut short of the sidecar's offset.
    await truncate(sessionFile(dir, 's'), byteOffset - 100)
    expect(await listed('s')).toEqual(await fullRead('s'))
    // The log's size kept, its last block zeros.
    await written('s', [])
    const file = sessionFile(dir, 's')
    const bytes = await readFile(file)
    bytes.fill(0, bytes.length - 300)
    await writeFile(file, bytes)
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await listed('s'))?.length).toBeLessThan(49)
  })

  it('a sidecar from a replaced file (the session deleted and created again, even with the same header line) is not used', async () => {
    await written('s', logEvents(0, 50))
    const old = await readFile(sidecar('s'))
    // Deleted by hand, created again with another log: create() deletes the sidecar left behind.
    await unlink(sessionFile(dir, 's'))
    await written('s', logEvents(0, 30).map((event) => Object.freeze({ ...event, time: event.time + 1 })))
    expect(await listed('s')).toEqual(await fullRead('s'))
    // Put back by hand (or by a copy of the folder): same header line, other bytes before its offset.
    await writeFile(sidecar('s'), old)
    await appendFile(sessionFile(dir, 's'), logEvents(30, 25).map((event) => JSON.stringify(event) + '\n').join(''))
    expect((await stat(sessionFile(dir, 's'))).size).toBeGreaterThan((JSON.parse(old.toString('utf8')) as { byteOffset: number }).byteOffset)
    expect(await listed('s')).toEqual(await fullRead('s'))
  })

  it('a writer whose file was replaced under it writes no sidecar for the file now under that name', async () => {
    const store = jsonlStore({ dir, batchWindowMs: 0 })
    const { writer } = await store.create(header('s'))
    for (const event of logEvents(0, 10)) writer.append(event)
    await writer.flush()
    const file = sessionFile(dir, 's')
    const text = await readFile(file, 'utf8')
    // Moved aside and replaced by a log of the same length and shape, other times.
    await rename(file, join(dir, 'moved.txt'))
    await writeFile(file, text.replace(/"time":1700000(\d)/g, (_, digit: string) => `"time":1700001${digit}`))
    await writer.close()
    expect(await listed('s')).toEqual(await fullRead('s'))
    await store.close()
  })

  it('respects the record of a valid length: no byte past it is summarised, before or after the sidecar\'s offset', async () => {
    await written('s', logEvents(0, 40))
    const file = sessionFile(dir, 's')
    const { byteOffset } = await kept('s')
    const extra = logEvents(40, 6).map((event) => JSON.stringify(event) + '\n')
    await appendFile(file, extra.join(''))
    const headerLine = (await readFile(file)).subarray(0, (await readFile(file)).indexOf(0x0a) + 1)
    const record = (length: number) => writeFile(validLengthPath(file), JSON.stringify({ bosun: 'valid-length', length, headerCrc: crc32(headerLine) }) + '\n')
    // Past the sidecar: the tail is cut there (two of the six lines count).
    await record(byteOffset + Buffer.byteLength(extra[0]! + extra[1]!))
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await listed('s'))?.length).toBe(42)
    // Before the sidecar's offset: the sidecar is not used, the log is read up to the record.
    const lines = (await readFile(file, 'utf8')).split('\n')
    await record(Buffer.byteLength(lines.slice(0, 31).join('\n') + '\n'))
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await listed('s'))?.length).toBe(30)
  })

  it('a session file that is moved aside is not listed, its sidecar is not a session, and create() starts a new one', async () => {
    await written('s', logEvents(0, 10))
    await rename(sessionFile(dir, 's'), join(dir, 'old.txt'))
    const store = jsonlStore({ dir })
    expect(await store.list()).toEqual([])
    await (await store.create(header('s'))).writer.close()
    expect(fieldsOf((await store.list())[0])).toEqual(summarizeLog(header('s'), []))
    await store.close()
  })
})

describe('list() after a crash that lost a journaled batch', () => {
  it('a session whose batches a dead process\'s store journal holds is summarised as read() replays it, not from its sidecar', async () => {
    const live = join(dir, 'live')
    const image = join(dir, 'image')
    const store = jsonlStore({ dir: live, batchWindowMs: 0, journal: true })
    const created = await store.create(header('s'))
    for (const event of logEvents(0, 20)) created.writer.append(event)
    await created.writer.close()
    const { writer } = (await store.open('s'))!
    for (const event of logEvents(20, 10)) writer.append(event)
    await writer.flush()
    // The power cut: the journal and the sidecar of 20 events on disk, the session file's last batch not.
    await mkdir(image)
    await copyStoreFiles(live, image)
    await copyFile(summaryPath(sessionFile(live, 's')), summaryPath(sessionFile(image, 's')))
    await truncate(sessionFile(image, 's'), (JSON.parse(await readFile(summaryPath(sessionFile(image, 's')), 'utf8')) as { byteOffset: number }).byteOffset)
    await store.close()
    dir = image
    expect(await listed('s')).toEqual(await fullRead('s'))
    expect((await listed('s'))?.length).toBe(30)
  })
})

describe('list() while the session is written', () => {
  it('in this process: every list is the summary of a prefix of the log, the last one of all of it', async () => {
    const events = logEvents(0, 400)
    const store = jsonlStore({ dir, batchWindowMs: 0 })
    const { writer } = await store.create(header('s'))
    const lister = jsonlStore({ dir })
    for (let start = 0; start < events.length; start += 8) {
      for (const event of events.slice(start, start + 8)) writer.append(event)
      const flushed = writer.flush()
      const entry = fieldsOf((await lister.list())[0])!
      expect(entry).toEqual(summarizeLog(header('s'), events.slice(0, entry.length)))
      await flushed
    }
    expect(fieldsOf((await lister.list())[0])).toEqual(summarizeLog(header('s'), events))
    await store.close()
    await lister.close()
  })

  it('in another process: every list is the summary of a prefix of the log, the last one of all of it', async () => {
    await written('s', logEvents(0, 20))
    const events = logEvents(20, 600)
    const eventsFile = join(dir, 'events.json')
    await writeFile(eventsFile, JSON.stringify(events))
    const all = [...logEvents(0, 20), ...events]
    const child = spawn(process.execPath, [CHILD, dir, 's', eventsFile, '6'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    // 'close', not 'exit': the child's last line may still be in the pipe when 'exit' comes.
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    let running = true
    void exited.then(() => (running = false))
    const lister = jsonlStore({ dir })
    const lengths = new Set<number>()
    while (running) {
      const entry = fieldsOf((await lister.list()).find((listedEntry) => listedEntry.id === 's'))!
      expect(entry).toEqual(summarizeLog(header('s'), all.slice(0, entry.length)))
      lengths.add(entry.length!)
    }
    expect(await exited).toBe(0)
    expect(output).toBe(`DONE ${all.length}\n`)
    expect(fieldsOf((await lister.list())[0])).toEqual(summarizeLog(header('s'), all))
    await lister.close()
  })
})
