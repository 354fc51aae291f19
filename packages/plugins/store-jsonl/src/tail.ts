import type { StoreFileHandle, StoreFileSystem } from './file-system.js'
import { overwriteLinesWithZeros } from './file-writes.js'
import { step } from './steps.js'
import { removeValidLength, validLengthName, writeValidLength } from './valid-length.js'

/** Where a writer's session file records its valid length (valid-length.ts); without it, nothing is recorded. */
export interface TailRecord {
  fs: StoreFileSystem
  file: string
  headerCrc: number
}

/**
 * What a failed batch leaves past a session file's durable length, and how one writer removes it.
 * The batch is rolled back by cutting the file (ftruncate + fdatasync). If it cannot be cut, the
 * batch's bytes are overwritten with zeros (file-writes.ts): open() cuts a NUL tail. If the zeros
 * fail too, the batch's lines may be whole in the file, where the next open() — or recovery after
 * a crash — would read them back: the durable length is then recorded beside the file
 * (valid-length.ts), which open() and read() obey. Until the file is cut, every batch cuts first
 * and deletes that record before writing ({@link cutBefore}); no batch is written meanwhile.
 */
export class FileTail {
  readonly #handle: StoreFileHandle
  readonly #record: TailRecord | undefined
  /** Bytes past the durable length (a batch's lines, or the zeros over them) may be in the file. */
  #dirty = false
  /** Neither the cut nor the zeros removed a failed batch: its lines may be whole in the file. */
  #residue = false
  /** The durable length is recorded beside the file: the lines past it cannot come back. */
  #recorded = false
  /** A record was written, or tried (a failed write can leave a whole one): it must go before the file grows past that length. */
  #recordMayExist = false

  constructor(handle: StoreFileHandle, record: TailRecord | undefined) {
    this.#handle = handle
    this.#record = record
  }

  /** Something to do before the next write: bytes to cut, or the record of the valid length to delete. */
  get pending(): boolean {
    return this.#dirty || this.#recordMayExist
  }

  /** The name (beside the file) of the record that fences off a failed batch's lines still in the file, while it does. */
  get recordName(): string | undefined {
    return this.#residue && this.#recorded ? validLengthName(this.#record!.file) : undefined
  }

  /** A failed batch's lines may come back at the next open() or after a crash: neither removed nor fenced off by a record. */
  get mayComeBack(): boolean {
    return this.#residue && !this.#recorded
  }

  /**
   * Rolls back a failed batch that wrote (or may have written) `written` at `size`: cut, else
   * zeros, else the record of the valid length. Never throws: {@link mayComeBack} says what is left.
   */
  async rollBack(size: number, written: Uint8Array): Promise<void> {
    try {
      await this.#cut(size)
    } catch {
      try {
        await overwriteLinesWithZeros(this.#handle, size, written)
        this.#residue = false
      } catch {
        this.#residue = true
        await this.#recordLength(size)
      }
    }
  }

  /**
   * Before the next write: cuts the file to `size`, then deletes the record of its length. Throws
   * the failure, marked with its step (steps.ts); the file is not written then.
   */
  async cutBefore(size: number): Promise<void> {
    try {
      if (this.#dirty) await this.#cut(size)
    } catch (error) {
      // An earlier record that could not be written: tried again, as long as the lines may be there.
      if (this.#residue) await this.#recordLength(size)
      throw error
    }
    if (this.#recordMayExist) {
      await removeValidLength(this.#record!.fs, this.#record!.file)
      this.#recordMayExist = false
      this.#recorded = false
    }
  }

  async #cut(size: number): Promise<void> {
    this.#dirty = true
    await step('ftruncate', () => this.#handle.truncate(size))
    await step('fdatasync after the ftruncate', () => this.#handle.datasync())
    this.#dirty = false
    this.#residue = false
  }

  async #recordLength(size: number): Promise<void> {
    if (this.#recorded || this.#record === undefined) return
    const { fs, file, headerCrc } = this.#record
    this.#recordMayExist = true
    try {
      await writeValidLength(fs, file, { length: size, headerCrc })
      this.#recorded = true
    } catch {
      // The lines may come back: the rejection says so (rolledBack: false).
    }
  }
}
