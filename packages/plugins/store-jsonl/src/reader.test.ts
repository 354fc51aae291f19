// Opening what a crash (or a person) left: torn tails are cut, damage before them is refused.
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError, LOG_FORMAT_VERSION, summarizeLog } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { parseLog } from './reader.js'
import { jsonlStore } from './store.js'
import { event, fileText, header, sessionFile } from './testing/fixtures.js'
import { recordingFs, tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const events = [event(0), event(1), event(2, 'last ✓✓✓ 🚢🚢 "ü"')]

/** Writes a three-event session through the store and returns its exact bytes. */
async function written(id = 's'): Promise<Buffer> {
  const store = jsonlStore({ dir })
  const { writer } = await store.create(header(id))
  for (const e of events) writer.append(e)
  await store.close()
  return readFile(sessionFile(dir, id))
}

/** Opens `id` with a fresh store, returning the events (or the error) and the file afterwards. */
async function reopen(id = 's'): Promise<{ events?: readonly SessionEvent[]; error?: unknown; file: Buffer }> {
  const store = jsonlStore({ dir })
  try {
    const opened = await store.open(id)
    return { events: opened?.events ?? [], file: await readFile(sessionFile(dir, id)) }
  } catch (error) {
    return { error, file: await readFile(sessionFile(dir, id)) }
  } finally {
    await store.close()
  }
}

const intactPrefix = Buffer.from(fileText(header('s'), events.slice(0, 2)))

describe('repair of a torn last line', () => {
  it('cuts a last line torn mid-way and keeps everything before it, byte for byte', async () => {
    const bytes = await written()
    await writeFile(sessionFile(dir, 's'), bytes.subarray(0, intactPrefix.length + 9))
    const { events: opened, file } = await reopen()
    expect(opened).toEqual(events.slice(0, 2))
    expect(file).toEqual(intactPrefix)
  })

  it('cuts a last line torn in the middle of a UTF-8 character', async () => {
    const bytes = await written()
    const emoji = bytes.indexOf(Buffer.from('🚢'), intactPrefix.length)
    await writeFile(sessionFile(dir, 's'), bytes.subarray(0, emoji + 2))
    const { events: opened, file } = await reopen()
    expect(opened).toEqual(events.slice(0, 2))
    expect(file).toEqual(intactPrefix)
  })

  it('cuts a complete last line that is not valid UTF-8 or not JSON', async () => {
    const bytes = await written()
    const emoji = bytes.indexOf(Buffer.from('🚢'), intactPrefix.length)
    await writeFile(sessionFile(dir, 's'), Buffer.concat([bytes.subarray(0, emoji + 2), Buffer.from('"}}\n')]))
    expect((await reopen()).file).toEqual(intactPrefix)
    await writeFile(sessionFile(dir, 's'), Buffer.concat([intactPrefix, Buffer.from('{"seq":2,"ti\n')]))
    const { events: opened, file } = await reopen()
    expect(opened).toEqual(events.slice(0, 2))
    expect(file).toEqual(intactPrefix)
  })

  it('cuts a trailing run of NUL bytes, alone or after a partial line', async () => {
    const bytes = await written()
    await appendFile(sessionFile(dir, 's'), Buffer.alloc(4096))
    expect(await reopen()).toEqual({ events, file: bytes })
    await writeFile(sessionFile(dir, 's'), Buffer.concat([bytes.subarray(0, intactPrefix.length + 5), Buffer.alloc(512)]))
    expect(await reopen()).toEqual({ events: events.slice(0, 2), file: intactPrefix })
  })

  it('a repaired session takes new appends right after the intact prefix', async () => {
    const bytes = await written()
    await writeFile(sessionFile(dir, 's'), bytes.subarray(0, bytes.length - 3))
    const store = jsonlStore({ dir })
    const opened = (await store.open('s'))!
    opened.writer.append(event(2, 'again'))
    await store.close()
    expect(await readFile(sessionFile(dir, 's'), 'utf8')).toBe(fileText(header('s'), [...events.slice(0, 2), event(2, 'again')]))
  })

  it('a failing ftruncate during repair refuses the open and leaves the file as it was', async () => {
    const bytes = await written()
    const torn = bytes.subarray(0, bytes.length - 3)
    await writeFile(sessionFile(dir, 's'), torn)
    const fs = recordingFs()
    fs.fail = (call) => (call.op === 'truncate' ? 'EIO' : undefined)
    const store = jsonlStore({ dir, fs })
    const failure = await store.open('s').catch((error: unknown) => error)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect(await readFile(sessionFile(dir, 's'))).toEqual(torn)
    fs.fail = () => undefined
    expect((await store.open('s'))?.events).toEqual(events.slice(0, 2))
    await store.close()
  })
})

describe('refusing damage', () => {
  const lines = async () => (await written()).toString('utf8').split('\n')
  const expectCorrupt = async (line: number) => {
    const before = await readFile(sessionFile(dir, 's'))
    const { error, file } = await reopen()
    expect(BosunError.is(error, 'CORRUPT_LOG')).toBe(true)
    expect((error as Error).message).toContain(sessionFile(dir, 's'))
    expect((error as Error).message).toContain(`line ${line}`)
    expect(file).toEqual(before) // never "repaired" away
  }

  it('a line before the last that is not JSON is corruption, named by file and line', async () => {
    const all = await lines()
    all[2] = '{"seq":1,"time":'
    await writeFile(sessionFile(dir, 's'), all.join('\n'))
    await expectCorrupt(3)
  })

  it('a seq gap is corruption at the line after the gap', async () => {
    const all = await lines()
    all.splice(2, 1)
    await writeFile(sessionFile(dir, 's'), all.join('\n'))
    await expectCorrupt(3)
  })

  it('a complete last line of the wrong shape is corruption, not a torn tail', async () => {
    const all = await lines()
    all[3] = '{"seq":2,"time":1,"type":"test/value","data":[1]}'
    await writeFile(sessionFile(dir, 's'), all.join('\n'))
    await expectCorrupt(4)
  })

  it('invalid UTF-8 before the last line is corruption', async () => {
    const bytes = await written()
    bytes[intactPrefix.length - 6] = 0xff // inside the last emoji of line 3: the JSON would still parse
    await writeFile(sessionFile(dir, 's'), bytes)
    await expectCorrupt(3)
  })

  it.each([
    ['not a header', '{"seq":0}\n'],
    ['an incomplete header', '{"bosun":"session","id":"s"'],
    ['an empty file', ''],
    ['a header for another id', JSON.stringify({ bosun: 'session', ...header('t') }) + '\n'],
  ])('%s is corruption at line 1', async (_, text) => {
    await writeFile(sessionFile(dir, 's'), text)
    await expectCorrupt(1)
  })

  it('a header from a newer format version is refused with UNSUPPORTED_LOG_VERSION naming the file', async () => {
    await writeFile(sessionFile(dir, 's'), fileText(header('s', { version: 999 }), [event(0)]))
    const { error } = await reopen()
    expect(BosunError.is(error, 'UNSUPPORTED_LOG_VERSION')).toBe(true)
    expect((error as Error).message).toContain(sessionFile(dir, 's'))
    expect((error as Error).message).toContain(`${LOG_FORMAT_VERSION}`)
  })
})

describe('list', () => {
  it('reads header lines and list summaries, no whole log, and leaves out what is not a readable session', async () => {
    await written('a')
    const store = jsonlStore({ dir })
    await (await store.create(header('b', { parent: 'a', seedLength: 0, createdAt: 5 }))).writer.close()
    await appendFile(sessionFile(dir, 'b'), 'not json\nnot json either\n') // damage after the header
    await writeFile(sessionFile(dir, 'newer'), fileText(header('newer', { version: 999 }), []))
    await writeFile(sessionFile(dir, 'torn'), '{"bosun":"ses')
    await writeFile(`${dir}/.hidden.jsonl`, fileText(header('.hidden'), []))
    await writeFile(`${dir}/notes.txt`, 'hello')
    const fs = recordingFs()
    const listed = await jsonlStore({ dir, fs }).list()
    expect(listed.sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: 'a', createdAt: 1_700_000_000_000, delegation: null, ...summarizeLog(header('a'), events) },
      // Damaged past its summary: listed without the fields (read() says what is wrong).
      { id: 'b', createdAt: 5, parent: 'a', delegation: null },
    ])
    expect(fs.calls.filter((c) => c.op === 'readFile' && c.path.endsWith('.jsonl'))).toEqual([])
    await store.close()
  })

  it('leaves out a folder named like a session file, and lists the rest', async () => {
    const store = jsonlStore({ dir })
    await (await store.create(header('real'))).writer.close()
    await mkdir(sessionFile(dir, 'oops'))
    expect((await store.list()).map((summary) => summary.id)).toEqual(['real'])
    await store.close()
  })

  it('lists nothing when the folder does not exist yet', async () => {
    expect(await jsonlStore({ dir: `${dir}/missing` }).list()).toEqual([])
    expect(await jsonlStore({ dir: `${dir}/missing` }).open('x')).toBeUndefined()
  })
})

describe('session ids', () => {
  it('refuses ids that could leave the folder, before touching the disk', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs })
    for (const id of ['../escape', '/etc/passwd', 'a/b', '..', '.hidden', '']) {
      await expect(store.open(id)).rejects.toSatisfy((e) => BosunError.is(e, 'INVALID_SESSION_ID'))
      await expect(store.create(header(id))).rejects.toSatisfy((e) => BosunError.is(e, 'INVALID_SESSION_ID'))
    }
    expect(fs.calls).toEqual([])
  })
})

describe('files decoded in slices (a whole file as one string would fail past ~512 MB)', () => {
  /** The outcome of a parse, comparable across slice sizes: the result, or the error's code and message. */
  function outcome(bytes: Buffer, sliceBytes?: number): unknown {
    try {
      const log = parseLog(bytes, 'f.jsonl', 's', sliceBytes)
      return { header: log.header, events: log.events, intactLength: log.intactLength }
    } catch (error) {
      return { code: (error as BosunError).code, message: (error as Error).message }
    }
  }

  it('any slice size gives the same events, repair length and errors as one slice', () => {
    const many = Array.from({ length: 12 }, (_, seq) => event(seq, seq % 3 === 0 ? 'ü🚢 '.repeat(seq) : `text ${seq}`))
    const text = Buffer.from(fileText(header('s'), many))
    const damages = fc.oneof(
      fc.constant((b: Buffer) => b),
      fc.nat().map((n) => (b: Buffer) => b.subarray(0, n % (b.length + 1))), // torn anywhere
      fc.nat().map((n) => (b: Buffer) => { const c = Buffer.from(b); c[n % c.length] = 0x7b; return c }), // a byte changed
      fc.nat().map((n) => (b: Buffer) => { const c = Buffer.from(b); c[n % c.length] = 0xff; return c }), // invalid UTF-8
      fc.nat(40).map((n) => (b: Buffer) => Buffer.concat([b, Buffer.alloc(n)])), // NUL tail
    )
    fc.assert(
      fc.property(damages, fc.integer({ min: 1, max: 400 }), (damage, sliceBytes) => {
        const bytes = damage(text)
        expect(outcome(bytes, sliceBytes)).toEqual(outcome(bytes))
      }),
      { numRuns: 300 },
    )
  })

  it('the slices of an intact file hold every event once, in order', () => {
    const many = Array.from({ length: 50 }, (_, seq) => event(seq, 'x'.repeat(seq * 7)))
    const log = parseLog(Buffer.from(fileText(header('s'), many)), 'f.jsonl', 's', 64)
    expect(log.events).toEqual(many)
  })
})
