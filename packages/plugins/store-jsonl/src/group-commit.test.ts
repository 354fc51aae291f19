// Group commit (commit.ts): sessions flushing together share one round — every file written, then
// every file fdatasynced — and each settles on its own file's outcome.
import { readFile } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { BosunError } from '@bosun/core'
import type { SessionEvent, SessionWriter } from '@bosun/core'
import { commitScheduler } from './commit.js'
import { jsonlStore } from './store.js'
import { event, fileText, header, readSession, sessionFile, sleep } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall, type FsOp } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const batchOps = (calls: FsCall[]) => calls.filter((c) => c.op === 'stat' || c.op === 'write' || c.op === 'datasync' || c.op === 'truncate')
const rounds = () => commitScheduler.stats.rounds

describe('one round for the sessions that flush together', () => {
  it('two sessions flushing in the same tick: one round, both files written before either is fdatasynced, one fdatasync each', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const a = (await store.create(header('a'))).writer
    const b = (await store.create(header('b'))).writer
    fs.calls.length = 0
    const before = rounds()
    a.append(event(0))
    b.append(event(0))
    b.append(event(1))
    await Promise.all([a.flush(), b.flush()])
    expect(rounds() - before).toBe(1)
    const [fa, fb] = [sessionFile(dir, 'a'), sessionFile(dir, 'b')]
    const ops = batchOps(fs.calls)
    expect(ops.filter((c) => c.op === 'write')).toEqual([{ op: 'write', path: fa }, { op: 'write', path: fb }])
    expect(ops.filter((c) => c.op === 'datasync')).toEqual([{ op: 'datasync', path: fa }, { op: 'datasync', path: fb }])
    expect(ops.findLastIndex((c) => c.op === 'write')).toBeLessThan(ops.findIndex((c) => c.op === 'datasync'))
    expect(await readSession(dir, 'a')).toBe(fileText(header('a'), [event(0)]))
    expect(await readSession(dir, 'b')).toBe(fileText(header('b'), [event(0), event(1)]))
    await store.close()
  })

  it('sessions of two stores of the same process share the round too', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const first = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const second = jsonlStore({ dir: `${dir}/other`, fs, batchWindowMs: 10_000, journal: false })
    const a = (await first.create(header('a'))).writer
    const b = (await second.create(header('b'))).writer
    fs.calls.length = 0
    const before = rounds()
    a.append(event(0))
    b.append(event(0))
    await Promise.all([a.flush(), b.flush()])
    expect(rounds() - before).toBe(1)
    const ops = batchOps(fs.calls).map((c) => c.op)
    expect(ops.slice(0, 4).sort()).toEqual(['stat', 'stat', 'write', 'write'])
    expect(ops.slice(4)).toEqual(['datasync', 'datasync'])
    await Promise.all([first.close(), second.close()])
  })

  it('a single session stays at its floor: one write and one fdatasync per flush, one round each', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const { writer } = await store.create(header('s'))
    fs.calls.length = 0
    const before = rounds()
    for (let seq = 0; seq < 3; seq++) {
      writer.append(event(seq))
      await writer.flush()
    }
    expect(rounds() - before).toBe(3)
    expect(batchOps(fs.calls).map((c) => c.op)).toEqual(['stat', 'write', 'datasync', 'stat', 'write', 'datasync', 'stat', 'write', 'datasync'])
    await store.close()
  })

  it('appends made after a flush but before its round runs are part of that batch', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const { writer } = await store.create(header('s'))
    fs.calls.length = 0
    writer.append(event(0))
    const flushed = writer.flush()
    writer.append(event(1))
    await flushed
    expect(fs.count('write')).toBe(1)
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0), event(1)]))
    await store.close()
  })

  it('a session whose fdatasync is slow does not hold back the others: their next rounds go on without it', async () => {
    const fs = recordingFs()
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
    const slow = (await store.create(header('slow'))).writer
    const fast = (await store.create(header('fast'))).writer
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    fs.hold = (call) => (call.op === 'datasync' && call.path === sessionFile(dir, 'slow') ? held : undefined)
    slow.append(event(0))
    const slowFlush = slow.flush()
    await fs.next((c) => c.op === 'datasync' && c.path === sessionFile(dir, 'slow'))
    for (let seq = 0; seq < 3; seq++) {
      fast.append(event(seq))
      await fast.flush()
    }
    expect(await readSession(dir, 'fast')).toBe(fileText(header('fast'), [event(0), event(1), event(2)]))
    release()
    await slowFlush
    expect(await readSession(dir, 'slow')).toBe(fileText(header('slow'), [event(0)]))
    await store.close()
  })
})

describe('a failure stays with its own file', () => {
  it.each([['write'], ['datasync'], ['stat']] as const)(
    'a failing %s of one session in a shared round rolls back only that file and rejects only its flush',
    async (op) => {
      const fs = recordingFs(undefined, { writeSync: true })
      const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: false })
      const writers = await Promise.all(['a', 'b', 'c'].map(async (id) => (await store.create(header(id))).writer))
      const committed = await readSession(dir, 'b')
      const bad = sessionFile(dir, 'b')
      fs.fail = (call) => (call.op === op && call.path === bad && fs.calls.filter((c) => c.op === op && c.path === bad).length === 1 ? 'EIO' : undefined)
      fs.calls.length = 0
      const before = rounds()
      for (const writer of writers) {
        writer.append(event(0))
        writer.append(event(1))
      }
      const results = await Promise.allSettled(writers.map((writer) => writer.flush()))
      expect(rounds() - before).toBe(1)
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      const failure = (results[1] as PromiseRejectedResult).reason
      expect(BosunError.is(failure, 'STORE')).toBe(true)
      expect((failure as Error).message).toContain(bad)
      expect(((failure as Error).cause as { code: string }).code).toBe('EIO')
      // The failed file is back at its committed bytes; the others hold their batch.
      expect(await readSession(dir, 'b')).toBe(committed)
      expect(await readSession(dir, 'a')).toBe(fileText(header('a'), [event(0), event(1)]))
      expect(await readSession(dir, 'c')).toBe(fileText(header('c'), [event(0), event(1)]))
      // Only the failed file was truncated (a failed fstat touched nothing: nothing to cut).
      const truncated = fs.calls.filter((c) => c.op === 'truncate').map((c) => c.path)
      expect(truncated).toEqual(op === 'stat' ? [] : [bad])
      // Its events stayed queued: the retry writes them.
      await writers[1]!.flush()
      expect(await readSession(dir, 'b')).toBe(fileText(header('b'), [event(0), event(1)]))
      await store.close()
    },
  )

  it('a stale session in a shared round is refused alone; the others are written', async () => {
    const store = jsonlStore({ dir, batchWindowMs: 10_000 })
    const a = (await store.create(header('a'))).writer
    const b = (await store.create(header('b'))).writer
    // Someone else appends to b behind its writer's back.
    const { appendFile } = await import('node:fs/promises')
    await appendFile(sessionFile(dir, 'b'), JSON.stringify(event(0, 'intruder')) + '\n')
    a.append(event(0))
    b.append(event(0))
    const [ra, rb] = await Promise.allSettled([a.flush(), b.flush()])
    expect(ra.status).toBe('fulfilled')
    expect(rb.status === 'rejected' && BosunError.is(rb.reason, 'STALE_WRITER')).toBe(true)
    expect(await readSession(dir, 'a')).toBe(fileText(header('a'), [event(0)]))
    await a.close()
    await expect(b.close()).rejects.toSatisfy((e) => BosunError.is(e, 'STALE_WRITER'))
    await store.close()
  })
})

/** One step of the property below. */
type Command =
  | { kind: 'append'; session: number; count: number }
  | { kind: 'flush'; session: number }
  | { kind: 'fail'; session: number; op: 'write' | 'datasync' | 'stat' }
  | { kind: 'settle' }

const SESSIONS = 3

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), session: fc.nat(SESSIONS - 1), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('flush' as const), session: fc.nat(SESSIONS - 1) }),
  fc.record({ kind: fc.constant('fail' as const), session: fc.nat(SESSIONS - 1), op: fc.constantFrom('write' as const, 'datasync' as const, 'stat' as const) }),
  fc.constant({ kind: 'settle' as const }),
)

describe('property: random interleavings of appends, flushes and failures across sessions', () => {
  it('keep every file (with and without the store journal) equal to a whole-line prefix of what was appended, never shorter than what a resolved flush acknowledged; a rejection only for a session whose file failed', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), fc.boolean(), fc.boolean(), async (commands, sync, journal) => {
        const folder = `${dir}/run-${run++}`
        const fs = recordingFs(undefined, { writeSync: sync })
        const store = jsonlStore({ dir: folder, fs, batchWindowMs: 10_000, journal })
        const ids = Array.from({ length: SESSIONS }, (_, i) => `s${i}`)
        const writers: SessionWriter[] = []
        for (const id of ids) writers.push((await store.create(header(id))).writer)
        const appended: SessionEvent[][] = ids.map(() => [])
        const acked = ids.map(() => 0)
        /** Failures armed per file (at most one at a time) and how many were consumed. */
        const armed = new Map<string, FsOp>()
        const consumed = ids.map(() => 0)
        const rejectedFor = new Set<number>()
        fs.fail = (call) => {
          if (armed.get(call.path) !== call.op) return undefined
          armed.delete(call.path)
          consumed[ids.findIndex((id) => sessionFile(folder, id) === call.path)]!++
          return call.op === 'write' ? 'ENOSPC' : 'EIO'
        }
        let pending: Promise<unknown>[] = []

        const check = async () => {
          for (const [i, id] of ids.entries()) {
            const text = await readFile(sessionFile(folder, id), 'utf8')
            const lines = text.split('\n').slice(1, -1).length
            expect(text).toBe(fileText(header(id), appended[i]!.slice(0, lines)))
            expect(lines).toBeGreaterThanOrEqual(acked[i]!)
          }
        }

        for (const step of commands) {
          if (step.kind === 'append') {
            for (let n = 0; n < step.count; n++) {
              const e = event(appended[step.session]!.length)
              appended[step.session]!.push(e)
              writers[step.session]!.append(e)
            }
          } else if (step.kind === 'flush') {
            const i = step.session
            const target = appended[i]!.length
            pending.push(writers[i]!.flush().then(
              () => void (acked[i] = Math.max(acked[i]!, target)),
              (error: unknown) => {
                expect(BosunError.is(error, 'STORE')).toBe(true)
                rejectedFor.add(i)
              },
            ))
          } else if (step.kind === 'fail') {
            armed.set(sessionFile(folder, ids[step.session]!), step.op)
          } else {
            await Promise.all(pending)
            pending = []
            await check()
          }
        }
        await Promise.all(pending)
        await check()
        // A flush was rejected only for a session one of whose file operations failed.
        for (const i of rejectedFor) expect(consumed[i]).toBeGreaterThan(0)
        // Nothing is lost: with the failures disarmed, closing writes everything still queued.
        armed.clear()
        await store.close()
        const reopened = jsonlStore({ dir: folder })
        for (const [i, id] of ids.entries()) {
          const opened = (await reopened.open(id))!
          expect(opened.events).toEqual(appended[i])
        }
        await reopened.close()
      }),
      { numRuns: 60 },
    )
  }, 120_000)
})

describe('timing', () => {
  it('the round waits no batch window: a flush starts it at the next macrotask', async () => {
    // A window far longer than the test's own limit: a flush that waited for it could never resolve
    // in time, so resolving at all is the assertion (no race against a wall-clock bound).
    const store = jsonlStore({ dir, batchWindowMs: 3_600_000 })
    const { writer } = await store.create(header('s'))
    writer.append(event(0))
    await writer.flush()
    expect(await readSession(dir, 's')).toBe(fileText(header('s'), [event(0)]))
    await store.close()
  })
})

describe('a member that breaks its never-reject contract', () => {
  it('does not keep the other members of its round from syncing and settling', async () => {
    const settled: string[] = []
    const member = (name: string, fails: boolean) => ({
      commitWrite: async () => {
        if (fails) throw new Error('a bug in a custom member')
        return true
      },
      commitSync: async () => {
        settled.push(name)
      },
    })
    // The round's warning, not another one the process emits meanwhile (a FileHandle some other
    // code left to the garbage collector): this file may share its worker with other files.
    const warned = new Promise<string>((resolve) => {
      const listener = (warning: Error) => {
        if (!/commit round member rejected/.test(warning.message)) return
        process.off('warning', listener)
        resolve(warning.message)
      }
      process.on('warning', listener)
    })
    commitScheduler.join(member('broken', true))
    commitScheduler.join(member('ok-1', false))
    commitScheduler.join(member('ok-2', false))
    expect(await warned).toMatch(/commit round member rejected \(a bug\): a bug in a custom member/)
    expect(settled.sort()).toEqual(['ok-1', 'ok-2'])
  })
})
