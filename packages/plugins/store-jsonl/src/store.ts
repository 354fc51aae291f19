import { isUtf8 } from 'node:buffer'
import { join, resolve } from 'node:path'
import { BosunError, ErrorCodes, LOG_FORMAT_VERSION, LogSummaryFold, assertSessionId, invalidArgument } from '@bosun/core'
import type { SessionEvent, SessionHeader, SessionSummary, Store, StoredSession } from '@bosun/core'
import { checkOpenedFile, refusedOpen } from './file-safety.js'
import { errnoCode, nodeFileSystem, syncDirectory, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { FILE_SUFFIX, eventLine, headerLine } from './format.js'
import { DEFAULT_BATCH_WINDOW_MS, DEFAULT_JOURNAL, checkJsonlStoreOptions, type JsonlStoreOptions } from './options.js'
import { parseHeader, parseLog } from './reader.js'
import { acquireSessionLock, type SessionLock } from './lock.js'
import { JsonlWriter } from './writer.js'
import { ioError, writeFully } from './file-writes.js'
import { ensureDirectory } from './store-folder.js'
import { readError } from './read-error.js'
import { StoreJournal } from './journal.js'
import { crc32, isJournalName, type JournalRecord } from './journal-format.js'
import { deadRecordsBySession, deadRecordsOf, recordsForOpen, replayAll, replayIntoFile, sweepDeadJournals } from './recovery.js'
import { headerCrcOf } from './replay.js'
import { readValidLength, removeValidLength, unlinkValidLength, withinValidLength } from './valid-length.js'
import { stepOf } from './steps.js'
import { readSummaryText, summaryIsCurrent, unlinkSummaryFile } from './summary-file.js'
import { deleteSessionFiles, lockedForRemoval, syncRemoval } from './remove.js'
import { removedHeaderCrcs, sweepRemovalRecords, withoutRemoved } from './removal-record.js'
import { checkHeader, isSessionId, openSessionFile, readFirstLine, readFirstLineBytes, readSummary, sessionSummary, type OpenedSessionFile } from './session-file.js'
import { readEventRange, wholeLinesEndAt } from './range.js'

/** New session files are private to their owner: they hold the conversation. */
const FILE_MODE = 0o600
/** Session files whose headers `list()` reads at once. */
const LIST_CONCURRENCY = 16

/**
 * A {@link Store} keeping each session in `<dir>/<id>.jsonl`: a header line, then one event per
 * line. Appends are written behind in batches (one write and one fdatasync each); `flush()`
 * resolving means durable. Opening cuts a torn last line left by a crash and refuses a file
 * damaged anywhere else (CORRUPT_LOG, with the line). Session files are opened without following
 * links; a link, a special file or a file with two names is refused (UNSAFE_STORE_FILE).
 *
 * @example
 * const store = jsonlStore({ dir: '.bosun/sessions' })
 * const agent = await createAgent({ model, store, sessionId: 'support-42' })
 */
export function jsonlStore(options: JsonlStoreOptions): Store {
  checkJsonlStoreOptions(options)
  return new JsonlStore(options)
}

class JsonlStore implements Store {
  readonly name = 'jsonl'
  readonly #dir: string
  readonly #fs: StoreFileSystem
  readonly #windowMs: number
  readonly #writers = new Set<JsonlWriter>()
  /** The store journal (journal.ts), unless `journal: false`. */
  readonly #journal: StoreJournal | undefined
  /** The sweep of dead processes' journals (recovery.ts), run once before the first create or open. */
  #swept: Promise<void> | undefined
  #closed = false

  constructor(options: JsonlStoreOptions) {
    this.#dir = resolve(options.dir)
    this.#fs = options.fs ?? nodeFileSystem
    this.#windowMs = options.batchWindowMs ?? DEFAULT_BATCH_WINDOW_MS
    this.#journal = (options.journal ?? DEFAULT_JOURNAL) ? new StoreJournal(this.#dir, this.#fs) : undefined
  }

  /** Creates `<id>.jsonl` with O_EXCL, writes header and seed, fsyncs the file, deletes a stale valid-length record, fsyncs the directory. */
  async create(header: SessionHeader, seed: readonly SessionEvent[] = []): Promise<StoredSession> {
    this.#assertOpen()
    assertSessionId(header?.id)
    checkHeader(header, seed)
    const file = this.#file(header.id)
    await ensureDirectory(this.#fs, this.#dir)
    await this.#sweep()
    const lock = await this.#lock(file, header.id)
    let handle: StoreFileHandle
    try {
      handle = await this.#fs.open(file, 'wx', FILE_MODE)
    } catch (error) {
      await lock.release()
      if (errnoCode(error) === 'EEXIST') {
        throw new BosunError(ErrorCodes.SESSION_EXISTS, `Session "${header.id}" already exists (${file}). Open it, or choose another id.`, {
          details: { sessionId: header.id, file },
        })
      }
      throw refusedOpen(error, file, header.id) ?? ioError('open', file, header.id, error)
    }
    let text = headerLine(header)
    for (const event of seed) text += eventLine(event)
    const bytes = Buffer.from(text, 'utf8')
    let step = 'fstat'
    try {
      const checked = await checkOpenedFile(handle, file, header.id)
      // Deleted by someone else in the instant since it was created: it would be written to no name.
      if (checked === 'gone') throw Object.assign(new Error('the new file was deleted as it was being created'), { code: 'ENOENT' })
      if (checked.identity !== undefined) lock.identify(checked.identity)
      step = 'write'
      await writeFully(handle, bytes, 0)
      step = 'fsync'
      await handle.sync()
      await unlinkValidLength(this.#fs, file)
      // A list summary left by a session deleted by hand: a cache, checked before use anyway.
      await unlinkSummaryFile(this.#fs, file)
      step = 'fsync of the directory'
      await syncDirectory(this.#fs, this.#dir)
    } catch (error) {
      // The session was not created: leave no half-made file behind to block the id.
      await handle.close().catch(() => {})
      await this.#fs.unlink(file).catch(() => {})
      await lock.release()
      throw BosunError.is(error) ? error : ioError(stepOf(error, step), file, header.id, error)
    }
    const headerCrc = crc32(bytes.subarray(0, bytes.indexOf(0x0a) + 1))
    const journaled = await this.#mayJournal(header.id, headerCrc, handle, lock)
    const writer = await this.#track(handle, lock, { id: header.id, file, size: bytes.length, length: seed.length, headerCrc, summary: LogSummaryFold.of(header, seed) }, journaled)
    return { header, events: [...seed], writer }
  }

  /** Reads the whole file once, cuts a torn tail (ftruncate + fdatasync) and returns the events deep-frozen. */
  async open(id: string): Promise<StoredSession | undefined> {
    this.#assertOpen()
    assertSessionId(id)
    await this.#sweep()
    const opened = await this.#openExisting(id, 'r+')
    if (opened === undefined) return undefined
    const { file, handle, identity } = opened
    let lock: SessionLock | undefined
    let step = 'lock'
    try {
      // Before reading: a torn tail is cut only when no live writer can be appending to it.
      lock = await this.#lock(file, id)
      if (identity !== undefined) lock.identify(identity)
      step = 'read'
      // The list summary beside the log, read while the log is (it never rejects): see below.
      const kept = this.#fs.rename ? readSummaryText(this.#fs, file) : undefined
      const read = await handle.readFile()
      // What another process (a dead one, or one that looks alive) acknowledged through its
      // journal but may not have made durable here: under the session's lock, all of it.
      step = 'read of the store journals'
      const records = await recordsForOpen(this.#fs, this.#dir, id, this.#journal?.path)
      step = 'replay of the store journal'
      const replayed = await replayIntoFile(handle, read, records)
      step = 'read'
      const headerCrc = headerCrcOf(replayed) ?? 0
      // A rejected batch a rollback could not remove lies past the recorded length: cut with the torn tail.
      const valid = await readValidLength(this.#fs, file, id)
      const bytes = withinValidLength(replayed, valid, headerCrc)
      step = 'read'
      const log = parseLog(bytes, file, id)
      if (log.intactLength < replayed.length) {
        step = 'ftruncate (cutting a torn last line)'
        await handle.truncate(log.intactLength)
        await handle.datasync()
      }
      // Before anything is appended past it: a record left behind would cut acknowledged events off.
      if (valid) await removeValidLength(this.#fs, file)
      const summary = LogSummaryFold.of(log.header, log.events)
      // A sidecar already of this very log is not written again when the writer closes without
      // appending (reopening an idle session must not rewrite it each time).
      const current = await summaryIsCurrent(await kept, bytes.subarray(0, log.intactLength), { headerCrc, fold: summary })
      step = 'read of the removal record'
      const journaled = this.#journal !== undefined && !(await removedHeaderCrcs(this.#fs, this.#dir, id)).has(headerCrc)
      const writer = await this.#track(handle, lock, {
        id, file, size: log.intactLength, length: log.events.length, headerCrc, summary, ...(current ? { summarisedAt: log.intactLength } : {}),
      }, journaled)
      return { header: log.header, events: log.events, writer }
    } catch (error) {
      await handle.close().catch(() => {})
      await lock?.release()
      if (BosunError.is(error)) throw error
      // Reading (the file, the journals, the valid-length record) or repairing (a replay, a cut).
      const failed = stepOf(error, step)
      throw failed.startsWith('read') ? readError(failed, file, id, error) : ioError(failed, file, id, error)
    }
  }

  /**
   * Reads a session without taking it for writing and without repairing it: a torn last line is
   * left out, not cut. For readers that must not disturb a live writer (a fork, `bosun log`).
   */
  async read(id: string): Promise<{ header: SessionHeader; events: SessionEvent[] } | undefined> {
    const opened = await this.#openExisting(id, 'r')
    if (opened === undefined) return undefined
    const { file, handle } = opened
    try {
      // The record before the file: a writer or an open() cuts the file, then deletes the record,
      // so a file read before its cut is read with its record (the other order could miss both).
      const valid = await readValidLength(this.#fs, file, id)
      // A dead process's journaled batches are read as if replayed; the file is not touched.
      const bytes = await handle.readFile()
      const replayed = replayAll(bytes, await deadRecordsOf(this.#fs, this.#dir, id))?.bytes ?? bytes
      const log = parseLog(withinValidLength(replayed, valid, headerCrcOf(replayed)), file, id)
      return { header: log.header, events: log.events }
    } catch (error) {
      throw BosunError.is(error) ? error : readError(stepOf(error, 'read'), file, id, error)
    } finally {
      await handle.close().catch(() => {})
    }
  }

  /** Whether `<id>.jsonl` exists as a session file (opened and checked like `read`, not read). */
  async has(id: string): Promise<boolean> {
    const opened = await this.#openExisting(id, 'r')
    if (opened === undefined) return false
    await opened.handle.close().catch(() => {})
    return true
  }

  /** A session's header from the first line of `<id>.jsonl` (the log is not read). */
  async header(id: string): Promise<SessionHeader | undefined> {
    const opened = await this.#openExisting(id, 'r')
    if (opened === undefined) return undefined
    const { file, handle } = opened
    let line: string | undefined
    try {
      line = await readFirstLine(handle)
    } catch (error) {
      throw readError('read', file, id, error)
    } finally {
      await handle.close().catch(() => {})
    }
    // No whole first line: `read` says what is wrong with the file.
    return line === undefined ? (await this.read(id))?.header : parseHeader(line, file, id)
  }

  /**
   * One session's list entry — what `list()` gives for it, the header's `delegation` aside — with
   * its `length`, by the same path: the header line, the sidecar and the log's lines past it, else
   * (no usable sidecar, or records of the session in a dead process's journal) a full read like
   * `read()`'s. `undefined` for no such session; a file `list()` would leave out or list without the
   * fields (damaged, a link) is refused with what `read()` says about it.
   */
  async summary(id: string): Promise<(SessionSummary & { length: number }) | undefined> {
    this.#assertOpen()
    assertSessionId(id)
    // As list(): with a dead process's records for it, a full read replaying them; when the
    // journals cannot be read, a full read all the same (none replayed), never the sidecar alone.
    const dead = await deadRecordsOf(this.#fs, this.#dir, id).then((records) => (records.length > 0 ? records : undefined), () => [])
    return sessionSummary(this.#fs, this.#file(id), id, dead)
  }

  /**
   * Events `fromSeq` … `fromSeq + limit - 1` as `read()` gives them (a torn last line left out,
   * not cut), reading only their lines (range.ts): the header line, the end of the file (its
   * last line) and a binary search over byte offsets for the line of `fromSeq`. The file is read
   * up to the length it had when asked (a writer appending meanwhile is not waited for). With a
   * dead process's journal records for the session, or a file the search cannot answer for
   * (damaged, cut meanwhile), the log is read whole, as `read()` reads it.
   */
  async readEvents(id: string, fromSeq: number, limit = 1000): Promise<SessionEvent[]> {
    this.#assertOpen()
    assertSessionId(id)
    if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) throw invalidArgument(`readEvents(): "fromSeq" must be a non-negative integer, got ${String(fromSeq)}.`)
    if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument(`readEvents(): "limit" must be a positive integer, got ${String(limit)}.`)
    const opened = await this.#openExisting(id, 'r')
    if (opened === undefined) return []
    const { file, handle } = opened
    let events: SessionEvent[] | undefined
    try {
      // The record before the file, as read() reads them (see there).
      const valid = await readValidLength(this.#fs, file, id)
      const { size } = await handle.stat()
      const line = await readFirstLineBytes(handle)
      if (line !== undefined && (await deadRecordsOf(this.#fs, this.#dir, id)).length === 0) {
        parseHeader(line.toString('utf8', 0, line.length - 1), file, id, !isUtf8(line))
        const applies = valid !== undefined && valid.headerCrc === crc32(line)
        const length = applies ? Math.min(size, valid.length) : size
        const end = length < line.length ? undefined : await wholeLinesEndAt(handle, line.length, length)
        if (end !== undefined) events = await readEventRange(handle, file, { start: line.length, end }, fromSeq, limit)
      }
    } catch (error) {
      throw BosunError.is(error) ? error : readError(stepOf(error, 'read'), file, id, error)
    } finally {
      await handle.close().catch(() => {})
    }
    return events ?? (await this.read(id))?.events.slice(fromSeq, fromSeq + limit) ?? []
  }

  /**
   * Each `<id>.jsonl`'s header line and its log's list fields (`length`, `lastActivity`, `turns`,
   * `firstPrompt`, `pending`), from the summary its writer keeps beside it (`<id>.summary.json`)
   * and the log's lines past it: a bounded tail, not the whole log (summary-file.ts). Without a
   * usable summary the log is read whole; the fields are the same. Files whose header cannot be
   * read (damaged, newer format, removed meanwhile) are left out, and a log damaged past its header
   * is listed without the fields; `open()` says what is wrong with them.
   */
  async list(): Promise<SessionSummary[]> {
    this.#assertOpen()
    let names: string[]
    try {
      names = await this.#fs.readdir(this.#dir)
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return []
      throw new BosunError(ErrorCodes.STORE, `Could not list the sessions in ${this.#dir}: ${(error as Error).message}`, { cause: error })
    }
    const ids = names.filter((name) => name.endsWith(FILE_SUFFIX)).map((name) => name.slice(0, -FILE_SUFFIX.length)).filter(isSessionId)
    // What dead processes acknowledged through their journals and their files may lack: read()
    // replays it, so a session with such records is summarised from a full read like read()'s.
    const dead = names.some(isJournalName) ? await deadRecordsBySession(this.#fs, this.#dir).catch(() => undefined) : new Map<string, JournalRecord[][]>()
    const summaries: SessionSummary[] = []
    for (let start = 0; start < ids.length; start += LIST_CONCURRENCY) {
      const chunk = await Promise.all(ids.slice(start, start + LIST_CONCURRENCY).map((id) => readSummary(this.#fs, this.#file(id), id, dead?.get(id) ?? (dead ? undefined : []))))
      for (const summary of chunk) if (summary) summaries.push(summary)
    }
    return summaries
  }

  /**
   * Deletes session `id` for good, under its lock (remove.ts): SESSION_LOCKED while a writer of it
   * is open — in this store, another store of this process or another live process (a dead one's
   * stale lock is taken over, as `open()` does). Its file, its list summary and its record of a
   * valid length are unlinked, then its lock file, then the folder is fsynced. The store journals'
   * records of it are never replayed again (removal-record.ts), though their bytes stay in a
   * journal until its next checkpoint or its store's close.
   */
  async remove(id: string): Promise<boolean> {
    this.#assertOpen()
    assertSessionId(id)
    await this.#sweep()
    if (!(await this.has(id))) return false
    const file = this.#file(id)
    let lock: SessionLock
    try {
      lock = await this.#lock(file, id)
    } catch (error) {
      throw BosunError.is(error, ErrorCodes.SESSION_LOCKED) ? lockedForRemoval(error, id) : error
    }
    try {
      // Under the lock: removed (or replaced) by another process since has() looked.
      const opened = await this.#openExisting(id, 'r+')
      if (opened === undefined) return false
      try {
        if (opened.identity !== undefined) lock.identify(opened.identity)
        await deleteSessionFiles(this.#fs, this.#dir, file, id, opened.handle, this.#journal?.path)
      } finally {
        await opened.handle.close().catch(() => {})
      }
    } catch (error) {
      throw BosunError.is(error, ErrorCodes.SESSION_LOCKED) ? lockedForRemoval(error, id) : error
    } finally {
      await lock.release()
    }
    await syncRemoval(this.#fs, this.#dir, file, id)
    return true
  }

  /** Flushes and closes every open writer; rejects with the first failure after closing them all. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const results = await Promise.allSettled([...this.#writers].map((writer) => writer.close()))
    await this.#journal?.close()
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected')
    if (failure) throw failure.reason
  }

  /**
   * Whether the writer of a session just created may write through the journal: not when a
   * removed session of its id had the same header line (removal-record.ts), whose records would
   * be taken for its own and dropped. On failure the file is deleted and the lock released.
   */
  async #mayJournal(id: string, headerCrc: number, handle: StoreFileHandle, lock: SessionLock): Promise<boolean> {
    if (this.#journal === undefined) return false
    try {
      return !(await removedHeaderCrcs(this.#fs, this.#dir, id)).has(headerCrc)
    } catch (error) {
      await handle.close().catch(() => {})
      await this.#fs.unlink(this.#file(id)).catch(() => {})
      await syncDirectory(this.#fs, this.#dir).catch(() => {})
      await lock.release()
      throw readError('read of the removal record', this.#file(id), id, error)
    }
  }

  async #track(
    handle: StoreFileHandle, lock: SessionLock, at: { id: string; file: string; size: number; length: number; headerCrc: number; summary: LogSummaryFold; summarisedAt?: number },
    journaled = true,
  ): Promise<JsonlWriter> {
    if (this.#closed) {
      await handle.close().catch(() => {})
      await lock.release()
      this.#assertOpen()
    }
    const writer = new JsonlWriter({
      ...at, handle, fs: this.#fs, batchWindowMs: this.#windowMs, ...(this.#journal && journaled ? { journal: this.#journal } : {}),
      onClose: (closed) => {
        this.#writers.delete(closed)
        return lock.release()
      },
    })
    this.#writers.add(writer)
    return writer
  }

  /** The session's file, opened and checked (session-file.ts), or undefined when there is no such session. */
  #openExisting(id: string, flags: 'r' | 'r+'): Promise<OpenedSessionFile | undefined> {
    this.#assertOpen()
    assertSessionId(id)
    return openSessionFile(this.#fs, this.#file(id), id, flags)
  }

  /**
   * Replays and deletes the journals of dead processes, once (recovery.ts), then the records of
   * removals no journal left needs (removal-record.ts); a failure leaves them for the next store.
   */
  #sweep(): Promise<void> {
    this.#swept ??= sweepDeadJournals(this.#fs, this.#dir, (id, records) => this.#replaySession(id, records))
      .catch(() => {})
      .then(() => sweepRemovalRecords(this.#fs, this.#dir))
    return this.#swept
  }

  /** Replays `records` into session `id`'s file under its lock; `busy` when a live writer holds it. */
  async #replaySession(id: string, records: JournalRecord[]): Promise<'done' | 'busy'> {
    if (!isSessionId(id)) return 'done'
    const file = this.#file(id)
    let lock: SessionLock
    try {
      lock = await this.#lock(file, id)
    } catch {
      return 'busy'
    }
    try {
      const opened = await this.#openExisting(id, 'r+')
      if (opened === undefined) return 'done'
      try {
        const kept = await withoutRemoved(this.#fs, this.#dir, id, records)
        if (kept.length > 0) await replayIntoFile(opened.handle, await opened.handle.readFile(), [kept])
      } finally {
        await opened.handle.close().catch(() => {})
      }
      return 'done'
    } finally {
      await lock.release()
    }
  }

  /** The session's write lock (see lock.ts); a custom file system (tests) locks the same real path. */
  #lock(file: string, id: string): Promise<SessionLock> {
    return acquireSessionLock(file, id)
  }

  #file(id: string): string {
    return join(this.#dir, id + FILE_SUFFIX)
  }

  #assertOpen(): void {
    if (this.#closed) throw new BosunError(ErrorCodes.STORE, `The JSONL store at ${this.#dir} is closed; create a new one to keep working.`)
  }
}
