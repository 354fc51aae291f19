/**
 * A session log's fingerprint up to a seq: a chain hash over its events, computed the same way by
 * the host (from its log, for the `prefix` of a stream's `hello`) and by the typed client (from
 * the frames it received), so that a reconnect can tell whether the host still has the log the
 * client streamed — all of it up to the cursor, not only the last event. Two logs can agree at
 * one seq (the same type, time, even data) and differ before it: a memory host restarted with a
 * new history, a host that lost an unsaved tail and reused its seqs.
 *
 * What is hashed: each event's JSON exactly as a `session.event` frame carries it (`data:` is
 * `JSON.stringify(event)`, and every store gives back the same JSON it was given), in seq order,
 * leaving out `assistant/chunk` events: `?chunks=false` skips the chunks of finished steps, so a
 * client does not see them all. A chunk that differs is still caught by the events around it:
 * after a lost tail the log goes on with a turn's end (recovery) or a new turn, never a chunk.
 *
 * The hash is 64 bits (two 32-bit lanes, cyrb53's mixing), carried as 16 hex digits; each step
 * costs the length of one event's JSON, so keeping it up costs nothing that grows with history.
 * Runtime-free of the host's code, like the client (browsers and Node).
 */

/** Whether an event of `type` is part of the fingerprint. */
export function fingerprinted(type: string): boolean {
  return type !== 'assistant/chunk'
}

export class LogHash {
  /** The fingerprint of the empty log (cursor -1). */
  static readonly EMPTY = '811c9dc52545f491'

  #h1: number
  #h2: number

  /** From a fingerprint's hex (default: the empty log's). */
  constructor(hex: string = LogHash.EMPTY) {
    if (!/^[0-9a-f]{16}$/.test(hex)) throw new TypeError(`A log fingerprint is 16 hex digits, got ${JSON.stringify(hex)}.`)
    this.#h1 = Number.parseInt(hex.slice(0, 8), 16)
    this.#h2 = Number.parseInt(hex.slice(8), 16)
  }

  /** Adds the next event, as its JSON (the caller leaves out what {@link fingerprinted} excludes). */
  add(eventJson: string): void {
    let h1 = this.#h1
    let h2 = this.#h2
    for (let i = 0; i < eventJson.length; i++) {
      const c = eventJson.charCodeAt(i)
      h1 = Math.imul(h1 ^ c, 2654435761)
      h2 = Math.imul(h2 ^ c, 1597334677)
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
    this.#h1 = h1 >>> 0
    this.#h2 = h2 >>> 0
  }

  /** The two lanes (the host keeps them per seq in a typed array). */
  get h1(): number {
    return this.#h1
  }

  get h2(): number {
    return this.#h2
  }

  get hex(): string {
    return hex8(this.#h1) + hex8(this.#h2)
  }

  static hexOf(h1: number, h2: number): string {
    return hex8(h1) + hex8(h2)
  }
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0')
}
