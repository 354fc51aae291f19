import type { SessionEvent } from './events.js'
import { pageEvents, sealPage, type SealedPage } from './log-pages.js'
import { LOG, logView } from './log-view.js'

const NO_PAGES: readonly SealedPage[] = Object.freeze([])

/**
 * A session's log: sealed pages (the older events, deflated JSON off the heap: log-pages.ts) and
 * a live tail array. `seq` is the index in the whole log: the pages hold `0 … base - 1`, the tail
 * `base …`. Until a page is sealed the tail is the whole log and `events()` is that array itself,
 * so an unsealed session costs what a plain array did.
 *
 * Core-private: the session reads and appends through it; the memory store keeps the same object
 * as its stored log (store/memory.ts), so a sealed page is held once.
 */
export class EventLog {
  /** Ascending and contiguous from seq 0. Replaced, never changed in place: a fork shares it. */
  pages: readonly SealedPage[]
  /** The events from `base` on. Replaced (not spliced) when sealed: a holder's old array stays intact. */
  tail: SessionEvent[]
  /** The seq of `tail[0]`: how many events the pages hold. */
  base: number
  /** The read-only view handed out once pages exist (made on the first read, then reused). */
  #view: readonly SessionEvent[] | undefined

  constructor(tail: SessionEvent[], pages: readonly SealedPage[] = NO_PAGES, base = 0) {
    this.tail = tail
    this.pages = pages
    this.base = base
  }

  /**
   * The log behind what `Session.events` (or a memory store's `open`) handed out: a view's log is
   * forked (its pages shared, its tail copied), so two sessions never push into one tail; a plain
   * array is taken over as the tail, as a `Session` always took over its stored array.
   */
  static from(events: readonly SessionEvent[]): EventLog {
    const log = (events as { [LOG]?: EventLog })[LOG]
    return log === undefined ? new EventLog(events as SessionEvent[]) : log.fork()
  }

  get length(): number {
    return this.base + this.tail.length
  }

  /** The event with this seq (a frozen copy if it is in a sealed page), or undefined. */
  at(seq: number): SessionEvent | undefined {
    const base = this.base
    if (seq >= base) return this.tail[seq - base]
    if (!(seq >= 0)) return undefined
    const page = this.#pageOf(seq)
    return pageEvents(page)[seq - page.first]
  }

  get last(): SessionEvent | undefined {
    const tail = this.tail
    return tail.length > 0 ? tail[tail.length - 1] : this.at(this.base - 1)
  }

  push(event: SessionEvent): void {
    this.tail.push(event)
  }

  /** What `Session.events` returns: the tail itself while nothing is sealed, else a read-only view. */
  events(): readonly SessionEvent[] {
    if (this.pages.length === 0) return this.tail
    return (this.#view ??= logView(this))
  }

  /** Events `start … end - 1` (clamped like `Array.prototype.slice`), in a new plain array. */
  slice(start = 0, end = this.length): SessionEvent[] {
    const length = this.length
    const from = clamp(start, length)
    const to = clamp(end, length)
    const out: SessionEvent[] = []
    let seq = from
    while (seq < to && seq < this.base) {
      const page = this.#pageOf(seq)
      const events = pageEvents(page)
      const stop = Math.min(to, page.first + page.count)
      for (; seq < stop; seq++) out.push(events[seq - page.first]!)
    }
    for (; seq < to; seq++) out.push(this.tail[seq - this.base]!)
    return out
  }

  /** A log that shares these (immutable) pages and has its own copy of the tail. */
  fork(): EventLog {
    return new EventLog([...this.tail], this.pages, this.base)
  }

  /**
   * Seals the events before seq `through` into pages of at most `pageSize` events. A last page
   * shorter than that is merged with the next events first (decoded and sealed again), so a log
   * sealed after every short turn does not end up with a page per turn. Returns how many events
   * left the tail.
   */
  seal(through: number, pageSize: number): number {
    const base = this.base
    const count = Math.min(through, this.length) - base
    if (count <= 0) return 0
    let sealing = this.tail.slice(0, count)
    let pages = this.pages
    const lastPage = pages[pages.length - 1]
    if (lastPage !== undefined && lastPage.count < pageSize) {
      sealing = [...pageEvents(lastPage), ...sealing]
      pages = pages.slice(0, -1)
    }
    const sealed = [...pages]
    for (let i = 0; i < sealing.length; i += pageSize) sealed.push(sealPage(sealing.slice(i, i + pageSize)))
    this.pages = Object.freeze(sealed)
    this.tail = this.tail.slice(count)
    this.base = base + count
    return count
  }

  /** Binary search: the page holding `seq` (which is below `base`). */
  #pageOf(seq: number): SealedPage {
    const pages = this.pages
    let low = 0
    let high = pages.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (pages[middle]!.first <= seq) low = middle
      else high = middle - 1
    }
    return pages[low]!
  }
}

function clamp(index: number, length: number): number {
  const integer = Math.trunc(Number(index)) || 0
  return integer < 0 ? Math.max(length + integer, 0) : Math.min(integer, length)
}
