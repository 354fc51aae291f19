/** The records staged for one store-journal flush, and who staged them (journal.ts). */

/** A writer whose batches go through the journal. */
export interface JournalMember {
  /** fdatasyncs the member's session file; resolves at once if the member closed (it synced its file itself). */
  syncFile(): Promise<void>
}

/** The records staged for one flush. */
export interface JournalGroup {
  readonly done: Promise<void>
}

export interface Group extends JournalGroup {
  chunks: Buffer[]
  /** Who staged each chunk. */
  members: JournalMember[]
  started: boolean
  resolve: () => void
  reject: (error: unknown) => void
}

export function newGroup(): Group {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)))
  // Every member awaits its group; this only keeps a group nobody awaits from an unhandled rejection.
  done.catch(() => {})
  return { done, chunks: [], members: [], started: false, resolve, reject }
}
