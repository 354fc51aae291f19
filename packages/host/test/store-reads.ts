import type { Store } from '@bosun/core'

/** What a host asked its store since {@link countReads}: whole-log reads, and range reads (how many, the events they gave, the lowest seq asked for). */
export interface CountedReads {
  reads: number
  ranges: number
  events: number
  lowest: number
}

/**
 * From now on, counts what a host asks `store`: whole-log reads (`read`) and the seqs of every
 * range read (`readEvents`). A store without `readEvents` is counted by its whole reads alone.
 */
export function countReads(store: Store): CountedReads {
  const counter = { reads: 0, ranges: 0, events: 0, lowest: Infinity }
  const read = store.read!.bind(store)
  const readEvents = store.readEvents?.bind(store)
  store.read = (id) => {
    counter.reads++
    return read(id)
  }
  if (readEvents) store.readEvents = async (id, fromSeq, limit) => {
    const events = await readEvents(id, fromSeq, limit)
    counter.ranges++
    counter.events += events.length
    counter.lowest = Math.min(counter.lowest, fromSeq)
    return events
  }
  return counter
}
