/**
 * Group commit across session files. Every writer of every JSONL store in the process that has a
 * batch to write (a `flush()`, or its batch window elapsed) joins the next **round**; one
 * macrotask later (`setImmediate`, so that the flushes of other sessions made in the same turn of
 * the event loop join it) the round writes every member's batch to its own file, and only once all
 * of those writes have returned starts the members' fdatasyncs, all at once. Each member settles on
 * its own: its `flush()` resolves when ITS file is synced, and a failure rolls back and rejects
 * only that member's batch. Rounds are not a barrier between writers: a writer whose batch is still
 * syncing joins the round after its batch settles, while the others go on without it.
 *
 * Why writes first: a session file's fdatasync commits the file system's journal for the size
 * change of the append. Issued after every file of the round has its bytes in the page cache, the
 * syncs that run together (libuv runs 4 at a time by default) find their changes in the same
 * journal transaction and share its commit, instead of each append starting its own.
 */

/** A writer taking part in the rounds. Neither method rejects: a member settles its own batch. */
export interface CommitMember {
  /**
   * Phase 1: takes everything queued as this round's batch, checks the file and writes it.
   * Resolves `true` when the batch still needs an fdatasync (phase 2), `false` when it is settled
   * already (durable because the handle writes through, failed, or empty).
   */
  commitWrite(): Promise<boolean>
  /** Phase 2: syncs the batch written in phase 1 and settles it. */
  commitSync(): Promise<void>
}

/** @internal Counters for tests and benchmarks; not part of the public API. */
export interface CommitStats {
  /** Rounds run. */
  rounds: number
  /** Batches written by those rounds (a member per round). */
  batches: number
  /** The most members a single round had. */
  widest: number
}

class CommitScheduler {
  readonly stats: CommitStats = { rounds: 0, batches: 0, widest: 0 }
  #next = new Set<CommitMember>()
  #pending: ReturnType<typeof setImmediate> | undefined

  /** Puts `member` in the next round (once, however often it asks). */
  join(member: CommitMember): void {
    this.#next.add(member)
    this.#pending ??= setImmediate(this.#run)
  }

  readonly #run = (): void => {
    this.#pending = undefined
    const members = [...this.#next]
    this.#next.clear()
    this.stats.rounds++
    this.stats.batches += members.length
    if (members.length > this.stats.widest) this.stats.widest = members.length
    this.#round(members).catch(unexpected)
  }

  async #round(members: CommitMember[]): Promise<void> {
    if (members.length === 1) {
      // Alone: no one to wait for between the write and the sync.
      if (await members[0]!.commitWrite()) await members[0]!.commitSync()
      return
    }
    // allSettled, not all: members never reject by contract, but if one ever did (a bug, or a
    // custom file handle breaking it), the others must still reach phase 2 and settle their batches.
    const wrote = await Promise.allSettled(members.map((member) => member.commitWrite()))
    const synced = await Promise.allSettled(members.filter((_, index) => isTrue(wrote[index]!)).map((member) => member.commitSync()))
    for (const result of [...wrote, ...synced]) if (result.status === 'rejected') unexpected(result.reason)
  }
}

function isTrue(result: PromiseSettledResult<boolean>): boolean {
  return result.status === 'fulfilled' && result.value
}

/** A member broke its never-reject contract: a bug to surface, not a reason to stop the process. */
function unexpected(error: unknown): void {
  process.emitWarning(`@bosun/plugin-store-jsonl: a commit round member rejected (a bug): ${error instanceof Error ? error.message : String(error)}`)
}

/** The process's scheduler: shared by every JSONL store, so that sessions of different stores share rounds too. */
export const commitScheduler = new CommitScheduler()
