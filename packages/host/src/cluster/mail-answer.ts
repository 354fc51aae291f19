import type { JsonValue } from '@bosun/core'
import { logHost } from '../host-log.js'
import { failed, gaveUp, HAND_OVER_HEADER, refusal, refused, RELAYED_HEADER, runWithin, type RelayedRequest, type RelayOutcome } from './relay.js'
import type { ClusterMailboxEntry, ClusterStore } from './store.js'

/**
 * How a lease owner answers one mailbox entry (cluster.ts): the HTTP request a client sent another
 * host, run here on this host's own app, within `relayRunMs`, its answer saved as the entry's
 * outcome — or, where the run's answer would mislead its sender (a failure outside the route, a
 * run given up on, an error for a message that was admitted), the answer that tells the truth.
 */
export class MailAnswerer {
  constructor(
    readonly store: ClusterStore,
    /** Runs a request on this host's own app (its auth and routes). */
    readonly fetch: (request: Request) => Promise<Response>,
    readonly token: string | undefined,
    readonly relayRunMs: number,
  ) {}

  /** Runs the entry's request and returns how its answer is saved; undefined when this host lost the session (the next owner runs it). */
  async answer(id: string, entry: ClusterMailboxEntry): Promise<(() => Promise<boolean>) | undefined> {
    const reason = refusal(id, entry)
    if (reason !== undefined) {
      logHost(`[bosun host] refused mailbox entry ${JSON.stringify(entry.messageId)} of session ${id}: ${reason}.`)
      return () => this.#complete(id, entry, refused(id, entry.messageId, reason))
    }
    // Claimed before it runs: its run's splice marks it delivered, and no other admission of its
    // id does (store.ts, `claim`). Not claimed (no longer pending as read, or the lease is lost):
    // this round ends, and the next one reads the mail again.
    if (!(await this.#claim(id, entry))) return undefined
    let outcome: RelayOutcome | undefined
    try {
      outcome = await this.#runWithin(id, entry)
    } catch (error) {
      // Not a route's error answer (those are stored like any answer): the request failed outside
      // it. Left pending, every wake-up and poll would run it again, the sender would wait for an
      // answer that never comes, and the session's later mail would wait behind it; so it is
      // answered with the failure. A message whose splice committed before the throw is in the
      // log, no longer pending: its sender's lookup finds it there.
      logHost(`[bosun host] running mailbox entry ${JSON.stringify(entry.messageId)} of session ${id} failed:`, error)
      return async () => {
        const now = await this.store.mailbox.get(id, entry.messageId)
        if (now !== undefined && now.deliveredSeq !== null) return true
        return this.#complete(id, entry, failed(id, entry))
      }
    }
    // The run did not end in time: its sender is answered so, and the session's later mail goes on.
    // A message admitted meanwhile is in the log (no longer pending): its lookup finds it there.
    // Logged once the answer is settled, saying which it was.
    if (outcome === undefined) {
      const answered = gaveUp(id, entry, this.relayRunMs)
      return async () => {
        const now = await this.store.mailbox.get(id, entry.messageId)
        if (now !== undefined && now.deliveredSeq !== null) {
          this.#gaveUpOn(id, entry, 'the message was admitted meanwhile, so it is not answered: its lookup finds it in the log')
          return true
        }
        const saved = await this.#complete(id, entry, answered)
        this.#gaveUpOn(id, entry, saved ? 'answered 503 session-unavailable' : 'this host lost the session meanwhile: its next owner runs it')
        return saved
      }
    }
    // Lost the lease between the look-up and the request: the next owner carries it out.
    if (outcome.status === 409 && (outcome.body as { error?: { code?: string } } | null)?.error?.code === 'session-locked') return undefined
    // A message answered with an error although its splice committed (the store's reply to the
    // commit was lost, so the durable wait threw): it was admitted. Stored, that error would be
    // every later answer under its id — the entry is delivered, so a send again cannot reopen it —
    // while its lookup finds it in the log. Run once more, the route answers the admission's receipt
    // (admission is idempotent by the id in the log). Should that run throw, the entry is left
    // delivered and not done, to its lookup, as a run that throws after the splice is.
    if (entry.kind === 'message' && outcome.status >= 400 && (await this.store.mailbox.get(id, entry.messageId))?.deliveredSeq != null) {
      try {
        outcome = await this.#runWithin(id, entry)
      } catch (error) {
        logHost(`[bosun host] reading the receipt of admitted mailbox entry ${JSON.stringify(entry.messageId)} of session ${id} failed:`, error)
        return async () => true
      }
      if (outcome === undefined) {
        this.#gaveUpOn(id, entry, 'the message is admitted (this run was for its receipt), so it is not answered: its lookup finds it in the log')
        return async () => true
      }
    }
    const answered = outcome
    return () => this.#complete(id, entry, answered)
  }

  /** Claims the entry for this run where the store can ({@link ClusterStore}'s `mailbox.claim`): false when it is not this host's to run now. */
  async #claim(id: string, entry: ClusterMailboxEntry): Promise<boolean> {
    const claim = this.store.mailbox.claim?.bind(this.store.mailbox)
    if (claim === undefined || entry.position === undefined) return true
    try {
      return await claim(id, entry.messageId, entry.position)
    } catch (error) {
      if ((error as { code?: string }).code === 'STALE_WRITER') return false
      throw error
    }
  }

  /** Runs a relayed request for at most `relayRunMs`: its answer, or undefined when it had not ended by then ({@link runWithin}). */
  #runWithin(id: string, entry: ClusterMailboxEntry): Promise<RelayOutcome | undefined> {
    return runWithin(this.#run(entry.body as unknown as RelayedRequest), this.relayRunMs, (error) => logHost(`[bosun host] mailbox entry ${JSON.stringify(entry.messageId)} of session ${id}, given up on, failed:`, error))
  }

  /** Logs a given-up run with what became of its entry (`what`): a 503 only when one was stored. */
  #gaveUpOn(id: string, entry: ClusterMailboxEntry, what: string): void {
    logHost(`[bosun host] gave up on mailbox entry ${JSON.stringify(entry.messageId)} of session ${id} after ${this.relayRunMs} ms: its run had not ended (a hook or a store call did not answer); ${what}. The session's later mail goes on; the run was not stopped and may still take effect.`)
  }

  /** Runs a relayed request on this host's own app, as its client would have sent it here: its answer. */
  async #run(relayed: RelayedRequest): Promise<RelayOutcome> {
    const headers: Record<string, string> = { [RELAYED_HEADER]: '1' }
    if (relayed.body !== undefined) headers['content-type'] = 'application/json'
    if (relayed.ifMatch !== undefined) headers['if-match'] = relayed.ifMatch
    if (relayed.handOver === true) headers[HAND_OVER_HEADER] = '1'
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`
    const response = await this.fetch(new Request(`http://127.0.0.1${relayed.path}`, {
      method: relayed.method,
      headers,
      ...(relayed.body === undefined ? {} : { body: JSON.stringify(relayed.body) }),
    }))
    const text = await response.text()
    let body: JsonValue = null
    try {
      body = text === '' ? null : (JSON.parse(text) as JsonValue)
    } catch {
      body = text
    }
    return { status: response.status, body }
  }

  /** Stores an entry's answer; false when this host lost the session meanwhile (the next owner answers it). */
  async #complete(id: string, entry: ClusterMailboxEntry, outcome: RelayOutcome): Promise<boolean> {
    try {
      await this.store.mailbox.complete(id, entry.messageId, outcome as unknown as JsonValue, entry.position)
      return true
    } catch (error) {
      if ((error as { code?: string }).code === 'STALE_WRITER') return false
      throw error
    }
  }

}
