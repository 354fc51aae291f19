import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { freezeParsedJson } from '../json.js'
import type { SessionEvent } from './events.js'
import { PAGE_DICTIONARY } from './page-dictionary.js'

/**
 * A run of consecutive events sealed off the heap: their JSON array text, deflated. Immutable: a
 * session and the memory store that keeps its log share the same pages, and a fork (a reopened
 * memory session) shares them too.
 */
export interface SealedPage {
  /** The `seq` of the first event. */
  readonly first: number
  readonly count: number
  /** `JSON.stringify(events)`, `deflateRawSync` at level 6 with the core's preset dictionary (page-dictionary.ts). */
  readonly bytes: Buffer
}

/**
 * Level 6 (zlib's default) and a preset dictionary: on figure 6's history 4,719 → ~3,100 bytes a
 * session against level 1 without one, at about the same CPU per event (the dictionary saves
 * deflate work on small pages). Sealing runs when a session is idle, off the turn
 * (docs/benchmarks.md, section 6, goal 2, step 3).
 */
const DEFLATE_OPTIONS = { level: 6, dictionary: PAGE_DICTIONARY }
const INFLATE_OPTIONS = { dictionary: PAGE_DICTIONARY }

/** Seals `events` (consecutive, the first at `events[0].seq`) into one page. */
export function sealPage(events: readonly SessionEvent[]): SealedPage {
  const deflated = deflateRawSync(JSON.stringify(events), DEFLATE_OPTIONS)
  // Copied into a buffer of its own size: zlib's one-chunk result is a slice of its 16 KiB output
  // buffer, which a kept page would keep whole. Not `Buffer.from` either: under 4 KiB that copies
  // into Node's shared 8 KiB pool, where figure 6's two pages (3.8 + 0.9 KB) left too little room
  // for the next session's first page, so each session held a whole slab (8 KiB for 4.7 KB).
  const bytes = Buffer.allocUnsafeSlow(deflated.length)
  deflated.copy(bytes)
  return Object.freeze({ first: events[0]!.seq, count: events.length, bytes })
}

/**
 * Decoded pages, most recently used last. Module-level and small: a session read once (a host
 * streaming an old log, a load-time scan) must not keep its pages decoded, or every idle session
 * that was read would hold its history live again. A sequential scan decodes each page once.
 */
const decoded = new Map<SealedPage, readonly SessionEvent[]>()
/** Enough for a scan that alternates between two logs (a fork and its parent) and a page of each. */
export const DECODED_PAGES_KEPT = 4
/** The page read last: consecutive reads of one page skip the LRU's re-insertion. */
let lastPage: SealedPage | undefined
let lastEvents: readonly SessionEvent[] = []

/**
 * The events of `page`, as a store's decoder gives them back: equal to the sealed ones, deep-frozen,
 * names shared (`freezeParsedJson`), not the same objects.
 */
export function pageEvents(page: SealedPage): readonly SessionEvent[] {
  if (page === lastPage) return lastEvents
  let events = decoded.get(page)
  if (events === undefined) {
    events = decode(page)
    if (decoded.size >= DECODED_PAGES_KEPT) decoded.delete(decoded.keys().next().value!)
  } else {
    decoded.delete(page)
  }
  decoded.set(page, events)
  lastPage = page
  lastEvents = events
  return events
}

function decode(page: SealedPage): readonly SessionEvent[] {
  const events = JSON.parse(inflateRawSync(page.bytes, INFLATE_OPTIONS).toString('utf8')) as SessionEvent[]
  // Unmarked, as the JSONL reader freezes an event line: an envelope is never passed on as input.
  for (const event of events) freezeParsedJson(event, { mark: false })
  return Object.freeze(events)
}

/** How many decoded pages are kept now (tests: the cache is bounded). */
export function decodedPageCount(): number {
  return decoded.size
}

/** Drops every decoded page (tests, and a host that wants the memory back at once). */
export function dropDecodedPages(): void {
  decoded.clear()
  lastPage = undefined
  lastEvents = []
}
