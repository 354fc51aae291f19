import type { SessionEvent } from '@bosun/core'
import { fingerprinted, LogHash } from './client-log-hash.js'

/**
 * The `prefix` of a session stream's `hello`: the fingerprint of the log up to the stream's cursor
 * (client-log-hash.ts), which a reconnecting client compares with the one it kept of what it
 * received. Kept per log (a log only grows, so its fingerprints never change) and extended on
 * demand: a session nobody reconnects to costs nothing, and a live one hashes each event once,
 * 8–16 bytes per event (the table doubles), however many clients reconnect.
 *
 * A live session's chain is keyed on its `Session`, not on `session.events`: the core's idle
 * sweep seals an idle log into pages, after which `session.events` is another object (a view), so
 * a chain keyed on the array was dropped at every first seal and the next reconnect hashed the
 * whole log again. The `Session` lives exactly as long as its log (a session closed and opened
 * again is a new `Session`, whose log may differ: it gets a new chain); its events are read by seq
 * (`eventAt`), which decodes a sealed page only for events not hashed yet.
 *
 * Hashing is one `JSON.stringify` per event (2–3 µs): a first reconnect at the end of a 50,000-event
 * log would hold the host's event loop — every other session's stream and turn — for over 100 ms.
 * So a stream first awaits {@link prefixReady}, which hashes {@link SLICE_EVENTS} events per
 * macrotask, and only then builds its hello, whose {@link logPrefix} has nothing left to hash.
 */

/**
 * A log the fingerprints are kept for: a live session (a `Session`: read by seq, one chain for its
 * whole life, across seals) or a log read from a store (an array that does not change: a cold or
 * cluster stream's copy).
 */
export type PrefixLog = { readonly length: number; eventAt(seq: number): SessionEvent | undefined } | readonly SessionEvent[]

interface Chain {
  /** The fingerprint after each seq, two lanes per seq. */
  lanes: Uint32Array
  /** The last seq hashed. */
  upTo: number
  hash: LogHash
}

const chains = new WeakMap<PrefixLog, Chain>()

export interface LogPrefix {
  /** The stream's cursor: the prefix covers seqs 0 … `seq`. */
  seq: number
  hash: string
}

/** Events hashed per macrotask by {@link prefixReady}: ~2–5 ms of work at a time. */
export const SLICE_EVENTS = 1000

/**
 * @internal For tests: how many times {@link prefixReady} gave the event loop back, and how many
 * events the chains have read and hashed (each seq of a log once, chunks included).
 */
export const prefixStats = { yields: 0, hashed: 0 }

export function logPrefix(log: PrefixLog, seq: number): LogPrefix {
  if (seq < 0) return { seq: -1, hash: LogHash.EMPTY }
  if (seq >= log.length) throw new RangeError(`logPrefix: seq ${seq} is past the log's end (${log.length - 1}).`)
  const chain = extend(log, seq)
  return { seq, hash: LogHash.hexOf(chain.lanes[2 * seq]!, chain.lanes[2 * seq + 1]!) }
}

/** Hashes the log up to `seq` a slice per macrotask, so that {@link logPrefix}(log, seq) is then immediate. */
export async function prefixReady(log: PrefixLog, seq: number): Promise<void> {
  const last = Math.min(seq, log.length - 1)
  for (let upTo = chains.get(log)?.upTo ?? -1; upTo < last; ) {
    upTo = extend(log, Math.min(last, upTo + SLICE_EVENTS)).upTo
    if (upTo >= last) return
    prefixStats.yields++
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}

/** The log's chain, hashed through `seq` at least. */
function extend(log: PrefixLog, seq: number): Chain {
  let chain = chains.get(log)
  if (chain === undefined) chains.set(log, (chain = { lanes: new Uint32Array(0), upTo: -1, hash: new LogHash() }))
  if (seq > chain.upTo) {
    if (chain.lanes.length < 2 * (seq + 1)) {
      const grown = new Uint32Array(Math.max(2 * (seq + 1), 2 * chain.lanes.length))
      grown.set(chain.lanes)
      chain.lanes = grown
    }
    const { hash, lanes } = chain
    // A session is read by seq (not through its view, which it may replace); an array by index.
    const at = 'eventAt' in log ? (i: number) => log.eventAt(i) : (i: number) => log[i]
    for (let i = chain.upTo + 1; i <= seq; i++) {
      const event = at(i)!
      if (fingerprinted(event.type)) hash.add(JSON.stringify(event))
      lanes[2 * i] = hash.h1
      lanes[2 * i + 1] = hash.h2
    }
    prefixStats.hashed += seq - chain.upTo
    chain.upTo = seq
  }
  return chain
}
