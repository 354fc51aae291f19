import { BosunError, ErrorCodes } from '@bosun/core'
import type { LogSummaryFold, SessionEvent, SessionWriter } from '@bosun/core'
import type { StoreFileHandle, StoreFileStat, StoreFileSystem } from './file-system.js'
import { ioError, writeFully, writeFullySync } from './file-writes.js'
import { commitScheduler, type CommitMember } from './commit.js'
import { eventLine } from './format.js'
import { RecordEncoder } from './journal-format.js'
import { journalStep, type JournalGroup, type JournalMember, type StoreJournal } from './journal.js'
import { stepOf } from './steps.js'
import { FileTail } from './tail.js'
import { closeError, closedWriterError, goneFileError, nonFiniteTimeError, outOfOrderError, staleWriterError } from './writer-errors.js'
import type { JsonlWriterOptions } from './writer-options.js'
import { newBatch, type Batch } from './batch.js'
import { SUMMARY_EVERY_BYTES, writeSummaryFile } from './summary-file.js'

export type { JsonlWriterOptions } from './writer-options.js'

/**
 * Write-behind for one session file. `append` serialises the event at once and queues the line;
 * queued lines are written as one batch after `batchWindowMs`, or at once by `flush()`, in the
 * process's next group-commit round (commit.ts): one pwrite, then — once every file of the round
 * is written — one fdatasync, alongside the other sessions' (no fdatasync when the handle writes
 * through, O_DSYNC). At most one batch is in flight. A failed batch is rolled back (tail.ts: cut
 * to the last durable length, this file only, else zeroed, else fenced off by a record of that
 * length), put back at the head of the queue, and
 * its error goes to every `flush()` awaiting it — or, when only the timer wrote it, to the next
 * `flush()`, which reports it without retrying; the flush after that retries. Before each batch
 * the file's size is compared with what this writer last wrote: a difference means another writer
 * appended, and the writer refuses for good with STALE_WRITER — as it does once the file has no
 * name left (deleted or replaced under it), where every later write would be lost.
 */
export class JsonlWriter implements SessionWriter, CommitMember, JournalMember {
  readonly #id: string
  readonly #file: string
  readonly #handle: StoreFileHandle
  readonly #windowMs: number
  readonly #onClose: (writer: JsonlWriter) => void | Promise<void>
  /** Bytes of the file this writer knows are durable. */
  #size: number
  /** Seq of the next append; also the number of events appended. */
  #nextSeq: number
  /** Number of events durable in the file. */
  #durable: number
  /** Lines appended and not yet durable, oldest first; one string, encoded once per batch. */
  #queued = ''
  #queuedCount = 0
  #inFlight: Batch | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  /** A timer batch's failure that no flush awaited; the next flush reports it. */
  #unreported: BosunError | undefined
  /** Sticky: another writer appended to the file. */
  #stale: BosunError | undefined
  /** What failed batches left past `#size`, to remove before the next write. */
  readonly #tail: FileTail
  #closed = false
  #closing: Promise<void> | undefined
  readonly #journal: StoreJournal | undefined
  /** This session's journal records (with a journal only). */
  readonly #records: RecordEncoder | undefined
  /** The journal flush the batch in flight waits for. */
  #group: JournalGroup | undefined
  /** Batches went through the journal since this file was last fdatasynced itself. */
  #journaled = false
  #handleClosed = false
  readonly #fs: StoreFileSystem | undefined
  readonly #headerCrc: number
  /** The list summary of every event appended (summary-file.ts); dropped if an event cannot be folded. */
  #summary: LogSummaryFold | undefined
  /**
   * The log's length at the last summary written beside it, or tried: a write that failed is tried
   * again only once the log has grown {@link SUMMARY_EVERY_BYTES} more (0: none known).
   */
  #summarisedAt = 0
  /** The summary of the batch in flight, taken when that batch brings the log {@link SUMMARY_EVERY_BYTES} past the last one. */
  #summaryDue: LogSummaryFold | undefined
  /** The summary being written, off the batch path; one at a time. */
  #summaryWrite: Promise<void> | undefined

  constructor(options: JsonlWriterOptions) {
    this.#id = options.id
    this.#file = options.file
    this.#handle = options.handle
    this.#size = options.size
    this.#nextSeq = options.length
    this.#durable = options.length
    this.#windowMs = options.batchWindowMs
    this.#onClose = options.onClose
    this.#journal = options.journal
    this.#records = options.journal ? new RecordEncoder(options.id, options.headerCrc ?? 0) : undefined
    this.#tail = new FileTail(options.handle, options.fs && { fs: options.fs, file: options.file, headerCrc: options.headerCrc ?? 0 })
    this.#fs = options.fs
    this.#headerCrc = options.headerCrc ?? 0
    this.#summary = options.fs?.rename ? options.summary : undefined
    this.#summarisedAt = options.summarisedAt ?? 0
  }

  /**
   * Queues `event`; synchronous, never touches the disk. Throws STALE_WRITER if its seq does not
   * follow the last one, and STORE once the writer is closed.
   */
  append(event: SessionEvent): void {
    if (this.#closed) throw closedWriterError(this.#id, this.#file)
    if (event.seq !== this.#nextSeq) throw outOfOrderError(this.#id, this.#file, this.#nextSeq, event.seq)
    if (!Number.isFinite(event.time)) throw nonFiniteTimeError(this.#id, event.seq)
    // Serialised now: the line is fixed at append time whatever happens to the object later.
    this.#queued += eventLine(event)
    this.#queuedCount++
    this.#nextSeq++
    if (this.#summary) {
      try {
        this.#summary.add(event)
      } catch {
        // An event the fold cannot read (not one a Session makes): no summary; list() reads the log.
        this.#summary = undefined
      }
    }
    this.#schedule()
  }

  /** Resolves once every event appended before the call is durable; does not wait for the batch window. */
  async flush(): Promise<void> {
    if (this.#closed) throw closedWriterError(this.#id, this.#file)
    const unreported = this.#unreported
    if (unreported) {
      this.#unreported = undefined
      throw unreported
    }
    await this.#drain()
  }

  /**
   * Flushes — retrying once if a batch fails, whether it was already in flight or failed on the
   * timer — then releases the file. Rejects if events could still not be written: they are lost
   * with this writer, and the error says how many.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    // A background failure is not reported here: close retries, and reports the retry's failure.
    this.#unreported = undefined
    let failure: unknown
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.#drain()
        failure = undefined
        break
      } catch (error) {
        failure = error
        if (BosunError.is(error, ErrorCodes.STALE_WRITER)) break
      }
    }
    // Everything appended is durable: the summary is of the whole file.
    await this.#summaryWrite
    if (failure === undefined && this.#summary && this.#summarisedAt !== this.#size) await this.#writeSummary(this.#summary)
    if (this.#journal) {
      // The journal's records of this file are needed until the file itself is durable.
      let synced = !this.#journaled
      if (!synced) {
        try {
          await this.#handle.datasync()
          synced = true
        } catch (error) {
          failure ??= ioError('fdatasync', this.#file, this.#id, error)
        }
      }
      this.#journal.release(this, synced)
    }
    try {
      this.#handleClosed = true
      await this.#handle.close()
    } catch (error) {
      failure ??= ioError('close', this.#file, this.#id, error)
    }
    // Awaited: the session's lock is gone once close resolves (a next open must not race its removal).
    await this.#onClose(this)
    if (failure === undefined) return
    const rolledBack = !this.#tail.mayComeBack && !(this.#journal?.recordsLeftOf(this) ?? false)
    throw closeError(this.#id, this.#file, failure, this.#queuedCount, rolledBack)
  }

  async #drain(): Promise<void> {
    const target = this.#nextSeq
    while (this.#durable < target) {
      const batch = this.#inFlight ?? this.#start()
      batch.observed = true
      await batch.done
    }
  }

  #schedule(): void {
    if (this.#timer || this.#inFlight || this.#closed || this.#unreported || this.#queuedCount === 0) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (!this.#inFlight && this.#queuedCount > 0) this.#start()
    }, this.#windowMs)
  }

  /** Opens the next batch and joins the next group-commit round, which decides what it holds. */
  #start(): Batch {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const batch = newBatch(
      () => {
        this.#inFlight = undefined
        this.#schedule()
      },
      (failed, error) => {
        this.#inFlight = undefined
        if (!failed.observed) this.#unreported = error
      },
    )
    this.#inFlight = batch
    commitScheduler.join(this)
    return batch
  }

  /**
   * @internal CommitMember, phase 1: takes everything queued now as the batch, checks the file and
   * writes it. `true` when an fdatasync must follow; the batch is settled otherwise.
   */
  async commitWrite(): Promise<boolean> {
    const batch = this.#inFlight!
    batch.text = this.#queued
    batch.count = this.#queuedCount
    this.#queued = ''
    this.#queuedCount = 0
    if (this.#stale) return this.#fail(batch, this.#stale)
    // With a journal the text is encoded once, into its record; the file gets the same bytes.
    const encoded = this.#records?.encode(this.#size, batch.text)
    const bytes = encoded ? encoded.bytes : Buffer.from(batch.text, 'utf8')
    batch.bytes = bytes.length
    // The batch holds every event appended: the summary now is the file's once it is durable.
    if (this.#summary && this.#summaryWrite === undefined && this.#size + bytes.length - this.#summarisedAt >= SUMMARY_EVERY_BYTES) {
      this.#summaryDue = this.#summary.clone()
    }
    let step = 'fstat'
    let touched = false
    try {
      // The default file system answers synchronously; a custom one may return any thenable.
      const stat = this.#handle.stat()
      const { size, nlink } = typeof (stat as { then?: unknown }).then === 'function' ? await stat : (stat as StoreFileStat)
      // No name left: the file was deleted or replaced under this writer; a write would reach no one.
      if (nlink === 0) throw (this.#stale = goneFileError(this.#id, this.#file))
      if (this.#tail.pending) {
        // A failed batch's bytes (or the zeros over them) to cut first: at most its length, as it
        // is retried at the head of this batch. A longer file holds another writer's bytes, which
        // the cut would destroy (one no longer than the batch's cannot be told from them by size).
        if (size < this.#size || size > this.#size + bytes.length) throw (this.#stale = staleWriterError(this.#id, this.#file, this.#size, size))
        await this.#tail.cutBefore(this.#size)
      } else if (size !== this.#size) throw (this.#stale = staleWriterError(this.#id, this.#file, this.#size, size))
      touched = true
      step = 'write'
      // Into the page cache, on this thread when the handle can: no thread-pool round trip.
      if (this.#handle.writeSync) writeFullySync(this.#handle.writeSync, bytes, this.#size)
      else await writeFully(this.#handle, bytes, this.#size)
    } catch (error) {
      if (error === this.#stale) return this.#fail(batch, error)
      return this.#fail(batch, error, stepOf(error, step), touched)
    }
    // An O_DSYNC handle made the write durable already.
    if (this.#handle.durableWrites === true) return this.#commit(batch)
    if (encoded) {
      this.#group = this.#journal!.stage(this, encoded.record)
      this.#journaled = true
    }
    return true
  }

  /** @internal JournalMember: a checkpoint makes this file durable itself (a closed writer synced it already). */
  syncFile(): Promise<void> {
    return this.#handleClosed ? Promise.resolve() : this.#handle.datasync()
  }

  /** @internal CommitMember, phase 2: fdatasyncs the batch written in phase 1, then settles it. */
  async commitSync(): Promise<void> {
    const batch = this.#inFlight!
    const group = this.#group
    this.#group = undefined
    try {
      await (group ? this.#journal!.sync(group) : this.#handle.datasync())
    } catch (error) {
      // The journal tells whether this batch's record is off it (else it may be replayed after a crash).
      await this.#fail(batch, error, group ? journalStep(error) : 'fdatasync', true, group !== undefined && this.#journal!.recordsLeftOf(this))
      return
    }
    this.#commit(batch)
  }

  #commit(batch: Batch): false {
    this.#size += batch.bytes
    this.#durable += batch.count
    const due = this.#summaryDue
    this.#summaryDue = undefined
    // Not awaited: the batch is settled now; close() waits for it.
    if (due) this.#summaryWrite = this.#writeSummary(due).finally(() => (this.#summaryWrite = undefined))
    batch.settle()
    return false
  }

  /**
   * Writes `summary`, the summary of the file's first `#size` bytes, beside it; a failure is ignored
   * (a cache: list() reads more of the log) and not retried before the log has grown another
   * {@link SUMMARY_EVERY_BYTES}: a folder that refuses the sidecar for good (read-only, out of
   * quota) would otherwise cost every batch a read of up to 64 KiB of the log and two opens.
   */
  async #writeSummary(summary: LogSummaryFold): Promise<void> {
    const size = this.#size
    this.#summarisedAt = size
    try {
      await writeSummaryFile(this.#fs!, this.#file, this.#handle, { size, headerCrc: this.#headerCrc, fold: summary })
    } catch {
      // Left as it was: list() folds on from the older sidecar, or reads the log whole.
    }
  }

  /**
   * Puts the batch back at the head of the queue and rejects it: with `error` itself when no
   * `step` is given (a stale writer), else with the STORE error of that step, after rolling the
   * file back if it was `touched`. The error says whether the batch could come back after a crash:
   * its lines left in the file, or (`journalLeftover`) its record left in the store journal.
   */
  async #fail(batch: Batch, error: unknown, step?: string, touched = false, journalLeftover = false): Promise<false> {
    this.#summaryDue = undefined
    this.#queued = batch.text + this.#queued
    this.#queuedCount += batch.count
    if (step === undefined) {
      batch.settle(error as BosunError)
      return false
    }
    // Encoded again, not kept: the failure path only (the same bytes: the text's UTF-8).
    if (touched) await this.#tail.rollBack(this.#size, Buffer.from(batch.text, 'utf8'))
    batch.settle(ioError(step, this.#file, this.#id, error, batch.count, !this.#tail.mayComeBack && !journalLeftover, this.#tail.recordName))
    return false
  }
}
