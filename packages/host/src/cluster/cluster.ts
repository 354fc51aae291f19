import type { JsonValue } from '@bosun/core'
import { HostError } from '../errors.js'
import type { LiveSession } from '../live-session.js'
import type { SessionManager } from '../sessions.js'
import { DRAIN_LOG_EVERY, DrainBackoff } from './drain-backoff.js'
import { handOverMessages } from './hand-over.js'
import { KeptAnswers } from './kept-answers.js'
import { leaseLostLine } from './lease-lost.js'
import { SessionNotices } from './session-notices.js'
import { PollOutage, storeFailure } from './poll-outage.js'
import { MailAnswerer } from './mail-answer.js'
import { admittedElsewhere, type LogAdmission } from './admitted-elsewhere.js'
import { awaitOutcome, isGaveUp, notAdmitted, outcomeOf, type RelayedRequest, type RelayOutcome } from './relay.js'
import type { ClusterMailboxEntry, ClusterStore, ClusterWatcher } from './store.js'
import { logHost } from '../host-log.js'
import { clientMessageIdReused, reuseDifference, type SentMessage } from '../message-reuse.js'

/** Options of a host on a cluster store (`createHost({ cluster })`). */
export interface ClusterOptions {
  /** How long a host that does not own a session waits for the owner to answer a relayed request before answering `pending`. Default 5000 ms. */
  relayWaitMs?: number
  /** How often the host looks for sessions whose owner died (expired leases) and for mail the wake-ups missed. Default 1000 ms. */
  pollIntervalMs?: number
  /** How many of a dead host's sessions this host opens at once in a failover (each open uses a pool connection at a time). Default 8. */
  takeoverConcurrency?: number
  /** How long this host, as a session's lease owner, lets a relayed request run before it answers it `503` and carries out the session's next mail. Default 30000 ms. */
  relayRunMs?: number
}

export const DEFAULT_RELAY_WAIT_MS = 5000

/** How often a cluster host polls for expired leases and mail the wake-ups missed (`pollIntervalMs`). */
export const DEFAULT_POLL_INTERVAL_MS = 1000

/**
 * How long the lease owner lets a relayed request run before it gives up on it (answers it
 * `503 session-unavailable` and carries out the session's next mail). A route's run takes
 * milliseconds (a message waits for its batch's commit; a cancel or queue edit is immediate): only
 * a hook or a store call that never settles takes this long.
 */
export const DEFAULT_RELAY_RUN_MS = 30_000

/** What a cluster tells the host stream (`GET /v1/stream`) about sessions other hosts made or run. */
export interface ClusterFeed {
  /** A session another host runs changed status. */
  changed(id: string): void
  /** A session another host (or process) made: `session.added`. */
  madeElsewhere(id: string): void
  /** A session was removed (on any host): `session.removed` — told once, also for this host's own removals (feed.ts). */
  removed(id: string): void
  /** Calls `listener` for each session made here (told by the routes: their NOTIFY comes back later); returns the unwatch. */
  onMadeHere(listener: (id: string) => void): () => void
  /** The LISTEN connection is up for the first time: tell the streams opened before it of the sessions made meanwhile. */
  listened(): void
  /** What only a NOTIFY tells may have been missed (the LISTEN connection was down): send each stream the whole list again. */
  relist(): void
}

export const DEFAULT_TAKEOVER_CONCURRENCY = 8

/**
 * One host's part in a cluster of hosts on one store (SPEC §13). As a lease owner it carries out
 * the mail other hosts admitted for its sessions (each entry is the HTTP request a client sent
 * there, run here on this host's own app, its answer stored as the entry's outcome); it takes the
 * lease of a cold session that has mail, and of every session whose lease expired unreleased (a
 * dead host's: the core's crash repair runs at that open and the queue continues); and it drops
 * a session whose lease another host took.
 */
export class Cluster {
  readonly watcher: ClusterWatcher
  readonly relayWaitMs: number
  /** How long this host, as a session's lease owner, lets a relayed request run before it gives up on it ({@link DEFAULT_RELAY_RUN_MS}). */
  readonly relayRunMs: number
  /** Enders of the streams this host serves from the store (ended when it closes). */
  readonly streams = new Set<() => void>()
  readonly #draining = new Map<string, { again: boolean; done: Promise<void> }>()
  /** Answers run here whose save failed: saved by the next round under the same lease, not run again. */
  readonly #kept = new KeptAnswers()
  /** Sessions whose rounds of carrying out their mail keep failing: the pause before the next round. */
  readonly #backoff = new DrainBackoff()
  /** The sessions mid-turn on any host, as last learned (status NOTIFYs, and each poll's `runningSessions()`). */
  readonly #running = new Set<string>()
  readonly #stops: Array<() => void> = []
  /** Hand-overs of accepted, unwritten messages under way (see hand-over.ts): a close waits for them. */
  readonly #handingOver = new Set<Promise<void>>()
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false
  readonly #pollMs: number
  readonly #takeovers: number
  /** Runs mailbox entries on this host's app and saves their answers (mail-answer.ts). */
  readonly #mail: MailAnswerer
  /** The poll's failing streak, logged at its start and end (poll-outage.ts). */
  readonly #outage: PollOutage

  constructor(
    readonly store: ClusterStore,
    readonly sessions: SessionManager,
    /** Runs a request on this host's own app (its auth and routes). */
    readonly fetch: (request: Request) => Promise<Response>,
    readonly token: string | undefined,
    options: ClusterOptions = {},
    /** Tells the host stream of sessions other hosts made or run. */
    readonly feed: ClusterFeed = { changed: () => {}, madeElsewhere: () => {}, removed: () => {}, onMadeHere: () => () => {}, listened: () => {}, relist: () => {} },
  ) {
    this.relayWaitMs = options.relayWaitMs ?? DEFAULT_RELAY_WAIT_MS
    this.relayRunMs = options.relayRunMs ?? DEFAULT_RELAY_RUN_MS
    this.#pollMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
    this.#takeovers = Math.max(1, Math.floor(options.takeoverConcurrency ?? DEFAULT_TAKEOVER_CONCURRENCY))
    this.#mail = new MailAnswerer(store, fetch, token, this.relayRunMs)
    this.#outage = new PollOutage(this.#pollMs)
    this.watcher = store.watch({ pollIntervalMs: this.#pollMs })
    this.#stops.push(this.watcher.onMailbox((session) => void this.drain(session)))
    // Messages accepted here and not written when the session is dropped go to its next owner.
    sessions.handOver = (id, messages) => {
      const posting = handOverMessages(store, id, messages).finally(() => this.#handingOver.delete(posting))
      this.#handingOver.add(posting)
    }
    this.#stops.push(() => {
      sessions.handOver = undefined
    })
    this.#stops.push(store.onLeaseLost((session, error, named) => {
      // The next owner runs what this one could not save (its save would be refused anyway).
      this.#kept.forgetSession(session)
      // Dropped now (its turn must not run on beside the new owner's); the line names the new
      // owner once the store has read it, a moment later.
      void sessions.drop(session, (dropped) => {
        if (named === undefined) logHost(leaseLostLine(session, error, dropped, store.owner))
        else void named.catch(() => error).then((told) => logHost(leaseLostLine(session, told, dropped, store.owner)))
      })
    }))
    this.#stops.push(this.watcher.onStatus((session, status) => this.#learn(session, status === 'running')))
    // Sessions made elsewhere, and removed on any host, told in the order their NOTIFYs came —
    // unless this host made the id again since (session-notices.ts). This host's own creates are
    // announced where it makes them (sessions.ts, the fork route); a removed session has nothing
    // kept for it any more (a session live here cannot be: the store removes no session whose
    // lease a live host holds).
    const notices = new SessionNotices((id) => stored(store, id), {
      created: (session) => {
        if (!this.#closed) feed.madeElsewhere(session)
      },
      removed: (session) => {
        if (this.#closed) return
        this.#kept.forgetSession(session)
        this.#running.delete(session)
        feed.removed(session)
      },
    })
    this.#stops.push(feed.onMadeHere((session) => notices.madeHere(session)))
    const created = this.watcher.onCreated?.((session, owner) => notices.created(session, owner === store.owner))
    if (created) this.#stops.push(created)
    const removed = this.watcher.onRemoved?.((session) => notices.removed(session))
    if (removed) this.#stops.push(removed)
    // The first connect follows the streams' hellos (a catch-up, no second hello); a reconnect may
    // have lost any NOTIFY, so each stream is sent the whole list again.
    let connected = false
    const listening = this.watcher.onListen?.(() => {
      if (this.#closed) return
      if (connected) feed.relist()
      else feed.listened()
      connected = true
    })
    if (listening) this.#stops.push(listening)
    // A store whose watcher does not say when it listens: nothing to wait for.
    else feed.listened()
    this.#schedule(0)
  }

  /**
   * True when another live host holds the session's lease (this host could not open it); a cold
   * session is opened here. `create: 'if-missing'` (a route that opens or creates): a new id is
   * created here — or, when another host creates it first (while this one's agent was being
   * built), found held by that host, so the request is relayed to it as for any session it owns.
   *
   * `opens: true`: the route that runs next here opens the session just so (`use(id, { create })`)
   * and answers its failure. An open that fails here for another reason than another host holding
   * the session or there being none is then thrown as that answer — not tried a second time by
   * the route (a config its plugin setups refuse would run them twice per request).
   */
  async ownedElsewhere(id: string, options: { create?: 'if-missing'; opens?: true } = {}): Promise<boolean> {
    if (await this.sessions.peek(id)) return false
    // A live lease of another host (on a subagent child's parent too, where the store can tell):
    // no need to open the session, or build its parent, to learn that the open would fail.
    if (await this.#heldElsewhere(id)) return true
    try {
      await this.sessions.use(id, options.create === undefined ? {} : { create: options.create })
      return false
    } catch (error) {
      if (error instanceof HostError && error.code === 'session-locked') return true
      if (options.opens === true && !(error instanceof HostError && error.code === 'session-not-found')) throw error
      return false
    }
  }

  /**
   * Posts a request to the session's mailbox (idempotent by `messageId`) and waits up to
   * `relayWaitMs` for the owner's answer; `outcome` is undefined when it has not come (pending).
   */
  async relay(id: string, messageId: string, kind: 'message' | 'request', relayed: RelayedRequest): Promise<{ created: boolean; outcome: RelayOutcome | undefined }> {
    const body = relayed as unknown as JsonValue
    const posted = await this.store.mailbox.post(id, { messageId, kind, body })
    // A message and a relayed request share the mailbox's keys. Requests are keyed so that no
    // message id can equal one (routes.ts), but an older host's were `request:<uuid>`, which the id
    // pattern allows: a message under such an id would be answered that request's answer. The id is
    // taken in this session, as one host says of an id its log already has.
    if (posted.entry.kind !== kind) throw new HostError('invalid-request', `Message id "${messageId}" is already used in this session: choose another clientMessageId.`, { path: '/clientMessageId' })
    let { created } = posted
    let entry: ClusterMailboxEntry | undefined = posted.entry
    // An entry the owner's own admission of the id marked delivered holds a message nothing
    // admitted: the send is judged by the log (admitted-elsewhere.ts).
    const elsewhere = kind === 'message' && !created ? await admittedElsewhere(this.store, id, entry) : undefined
    if (elsewhere !== undefined) return { created, outcome: judged(id, messageId, elsewhere, relayed) }
    // The id's entry keeps the message as it was sent: another message under it is refused, as the
    // owner refuses one its log admitted (admission.ts). One not admitted is sent again (below).
    if (kind === 'message' && !created && !notAdmitted(entry)) {
      const first = entry.body as { body?: SentMessage; handOver?: true } | null
      const differs = first?.handOver === true || first?.body === undefined ? undefined : reuseDifference(first.body, relayed.body as unknown as SentMessage)
      if (differs !== undefined) throw clientMessageIdReused(messageId, differs)
    }
    // A message sent again after an error answer: it was not admitted, and one host would run it
    // again (the web composer resends the same text under the same id), so it is posted again, not
    // answered that error for ever. A post that loses the race to reopen it waits for the other's run.
    const reopen = this.store.mailbox.reopen?.bind(this.store.mailbox)
    if (!created && notAdmitted(entry) && reopen !== undefined && entry.position !== undefined) {
      created = await reopen(id, messageId, { body, position: entry.position })
      entry = await this.store.mailbox.get(id, messageId)
    }
    // The entry this post made (or reopened): its answer is this sender's own.
    const mine = created ? entry?.position : undefined
    // relayWaitMs 0: answer `pending` at once, without a read that might just catch the owner's answer.
    // The wait ends early for an entry marked delivered by another admission of its id: its owner's
    // answer, if any, is a refusal the log overrules (or, with a store without `claim`, none comes).
    // Read once per delivery: a wait polls the entry every 50 ms.
    let judgedAt: { seq: number | null; found: Promise<LogAdmission | undefined> } | undefined
    const stray = (read: ClusterMailboxEntry | undefined): Promise<LogAdmission | undefined> => {
      if (read === undefined) return Promise.resolve(undefined)
      if (judgedAt?.seq !== read.deliveredSeq) judgedAt = { seq: read.deliveredSeq, found: admittedElsewhere(this.store, id, read) }
      return judgedAt.found
    }
    if (outcomeOf(entry) === undefined && this.relayWaitMs > 0) entry = await awaitOutcome(this.store, this.watcher, id, messageId, this.relayWaitMs, { settled: async (read) => (await stray(read)) !== undefined })
    // An owner's 2xx answer stands (its run admitted the message or found it admitted): no read.
    const answered = outcomeOf(entry)
    const strayed = kind === 'message' && (answered === undefined || answered.status >= 400) ? await stray(entry) : undefined
    if (strayed !== undefined) return { created: false, outcome: judged(id, messageId, strayed, relayed) }
    // Answered and reopened by another send before this sender read its answer: the run it reads
    // is the other's (its own answer, an error, is gone), so it is told the message was admitted
    // by another send, as the loser of a race to reopen is.
    if (created && outcomeOf(entry) !== undefined && entry?.position !== mine) created = false
    // The owner gave up on the message's run, which went on and admitted it after all: that answer
    // is not the message's. Answered `pending`, its lookup finds it in the log (as every send again does).
    if (entry?.kind === 'message' && entry.deliveredSeq !== null && isGaveUp(entry)) return { created, outcome: undefined }
    return { created, outcome: outcomeOf(entry) }
  }

  /**
   * Summaries with the live status of sessions other hosts run: a session this host has not
   * loaded shows `running` while the store says it is mid-turn (one indexed query, no log read).
   */
  async withLiveStatus<T extends { id: string; loaded: boolean; status: string }>(summaries: T[]): Promise<T[]> {
    if (summaries.every((s) => s.loaded)) return summaries
    const running = new Set(await this.store.runningSessions())
    return summaries.map((s) => (s.loaded || !running.has(s.id) ? s : { ...s, status: 'running' }))
  }

  #learn(id: string, running: boolean): void {
    if (running === this.#running.has(id)) return
    if (running) this.#running.add(id)
    else this.#running.delete(id)
    // The owner's own host stream already said so.
    void this.sessions.peek(id).then((live) => {
      if (!live && !this.#closed) this.feed.changed(id)
    })
  }

  /** Catches up with status changes whose NOTIFY was lost (the LISTEN connection was down). */
  async #reconcile(): Promise<void> {
    const now = new Set(await this.store.runningSessions())
    for (const id of now) this.#learn(id, true)
    for (const id of [...this.#running]) if (!now.has(id)) this.#learn(id, false)
  }

  /** Called once a session is open here: mail admitted while it was cold or owned elsewhere is carried out. */
  opened(id: string): void {
    setImmediate(() => void this.drain(id))
  }

  /**
   * Carries out a session's pending mail if this host owns it, or takes a cold session that has
   * mail. Resolves (never rejects) once this round of draining the session has ended.
   */
  drain(id: string): Promise<void> {
    if (this.#closed) return Promise.resolve()
    const running = this.#draining.get(id)
    if (running) {
      running.again = true
      return running.done
    }
    const state: { again: boolean; done: Promise<void> } = { again: false, done: Promise.resolve() }
    this.#draining.set(id, state)
    state.done = (async () => {
      try {
        // A wake-up during a round that throws still gets its round: its mail would otherwise wait
        // for the watcher's next poll (`pollIntervalMs`) — after a pause, which the wake-ups that
        // keep coming while the store is down share (they only ask for one more round).
        do {
          state.again = false
          const failure = await this.#drainOnce(id).then(() => undefined, (error: unknown) => ({ error }))
          if (failure === undefined) this.#roundSucceeded(id)
          else await this.#pause(this.#roundFailed(id, failure.error))
        } while (state.again && !this.#closed)
      } finally {
        this.#draining.delete(id)
      }
    })()
    return state.done
  }

  /** Logs the end of a failing streak. */
  #roundSucceeded(id: string): void {
    const streak = this.#backoff.succeeded(id)
    if (streak > 0) logHost(`[bosun host] carrying out the mail of session ${id} works again, after ${streak} failed round${streak === 1 ? '' : 's'}.`)
  }

  /** Logs a failing streak at its start and every DRAIN_LOG_EVERY rounds (once closed, that the host closed); the pause before the next round. */
  #roundFailed(id: string, error: unknown): number {
    // A round under way at close (waiting out a relayed run, say) that failed since: nothing tries
    // again, so it is not said to — one line that the host closed, with what failed.
    if (this.#closed) {
      const what = (error instanceof Error ? error.message : String(error)).replace(/\.+$/, '')
      logHost(`[bosun host] carrying out the mail of session ${id} stopped: the host closed during the round, which then failed (${what}). Nothing tries again here: the session's next owner carries out its mail.`)
      return 0
    }
    const { streak, pauseMs, log } = this.#backoff.failed(id)
    if (log) {
      const text = streak === 1
        ? `[bosun host] carrying out the mail of session ${id} failed; trying again in ${pauseMs} ms, less often while it fails (logged again every ${DRAIN_LOG_EVERY} failed rounds):`
        : `[bosun host] carrying out the mail of session ${id} still fails: ${streak} failed rounds in a row, trying again every ${pauseMs} ms:`
      logHost(text, storeFailure(error))
    }
    return pauseMs
  }

  /** Waits `ms`, or until the host closes. */
  async #pause(ms: number): Promise<void> {
    if (!this.#closed) await this.#backoff.pause(ms)
  }

  async #drainOnce(id: string): Promise<void> {
    // A cold session (or a dead owner's): the first host to take its lease carries out its mail.
    let opened: LiveSession | undefined = await this.sessions.peek(id)
    if (opened === undefined && (await this.#worthTaking(id)) && (await this.#take(id))) opened = await this.sessions.peek(id)
    // Answers kept under another open of the session (released or lost since) are the next owner's
    // to run, and those whose entry is no longer pending will never be saved: neither stays kept.
    this.#kept.forgetSession(id, opened)
    if (opened === undefined) return
    // In use for the round (held right after the peek, with no wait between): an idle retire that
    // closed it meanwhile released its lease under the round, whose claims were then refused and
    // which ended with the mail pending until the watcher's next poll.
    const release = this.sessions.hold(opened)
    try {
      await this.#kept.prune(id, (messageId) => this.store.mailbox.get(id, messageId))
      for (;;) {
        const pending = await this.store.mailbox.pending(id, 50)
        if (pending.length === 0 || this.#closed) return
        for (const entry of pending) if (!(await this.#carryOut(id, entry, opened))) return
      }
    } finally {
      release()
    }
  }

  /**
   * Whether a session not open here is worth opening on a wake-up: it has pending mail, and no
   * other host holds a live lease on it or (a subagent's child, opened through its parent) on an
   * ancestor — one query, before anything is opened or built. A snapshot, never a lost message: a
   * lease that runs out after it was read leaves the mail pending, and the watcher's poll wakes
   * every host again for it (every `pollIntervalMs`); mail posted after it was read notifies again.
   * The store's refusal of `open` stays the arbiter.
   */
  async #worthTaking(id: string): Promise<boolean> {
    const checked = await this.#wakeCheck(id)
    if (checked !== null) return checked !== undefined && !checked.heldElsewhere && checked.pendingMail
    return !(await this.#heldElsewhere(id)) && (await this.store.mailbox.pending(id, 1)).length > 0
  }

  /** The store's one-query check, or null when it has none or it failed (e.g. a header up the chain that is not JSON). */
  async #wakeCheck(id: string): Promise<{ heldElsewhere: boolean; pendingMail: boolean } | undefined | null> {
    return this.store.wakeCheck === undefined ? null : this.store.wakeCheck(id).catch(() => null)
  }

  /** Whether another host holds a live lease on the session, or on a subagent ancestor where the store can tell (`wakeCheck`). */
  async #heldElsewhere(id: string): Promise<boolean> {
    const checked = await this.#wakeCheck(id)
    if (checked !== null) return checked?.heldElsewhere === true
    const holder = await this.store.leaseHolder(id)
    return holder !== undefined && holder.expiresInMs > 0 && holder.owner !== this.store.owner
  }

  /** Takes a session's lease by opening it here; false when another host holds it (or it is gone). */
  async #take(id: string): Promise<boolean> {
    try {
      await this.sessions.use(id)
      return true
    } catch (error) {
      if (error instanceof HostError && (error.code === 'session-locked' || error.code === 'session-not-found')) return false
      throw error
    }
  }

  /**
   * Runs one relayed request here (or refuses one no host would relay) and stores its answer;
   * false when this host lost the session meanwhile. An answer whose save failed (the database
   * connection dropped) is kept: the next round (a wake-up, the watcher's poll) saves it without
   * running the request again, whose effects (a cancel, a queue edit) would happen twice.
   */
  async #carryOut(id: string, entry: ClusterMailboxEntry, opened: object): Promise<boolean> {
    const save = this.#kept.take(id, entry, opened) ?? (await this.#mail.answer(id, entry))
    if (save === undefined) return false
    this.#kept.keep(id, entry, opened, save)
    const saved = await save()
    this.#kept.forget(id, entry.messageId)
    return saved
  }

  /** Forgets the answers kept for sessions this host no longer has open as it had (an idle retire released the lease). */
  async #forgetReleased(): Promise<void> {
    for (const id of this.#kept.sessions()) this.#kept.forgetSession(id, await this.sessions.peek(id))
  }

  /**
   * Failover: every session whose lease ran out unreleased (its host died) is opened by the first
   * host that sees it. Up to `takeoverConcurrency` opens run at once: an open is a few
   * round trips and a log read, so one at a time left a dead host's 100th session waiting for
   * the 99 before it; more at once would take the whole pool from the requests being served.
   */
  async #failover(): Promise<void> {
    const expired = await this.store.expiredLeases(100)
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < expired.length && !this.#closed) {
        const { id } = expired[next++]!
        if (!(await this.sessions.peek(id))) await this.#take(id).catch((error: unknown) => logHost(`[bosun host] taking over session ${id} failed:`, storeFailure(error)))
      }
    }
    await Promise.all(Array.from({ length: Math.min(this.#takeovers, expired.length) }, worker))
  }

  #schedule(delay: number): void {
    if (this.#closed) return
    this.#timer = setTimeout(() => {
      // Failing streaks of sessions that run no more rounds here (deleted, no more mail): not kept for ever.
      this.#backoff.forgetStale((id) => this.#draining.has(id))
      // A failing poll is logged as an outage (poll-outage.ts): its start, now and then, its end.
      let failure: { error: unknown } | undefined
      const failed = (error: unknown): void => {
        failure ??= { error }
      }
      Promise.all([this.#failover().catch(failed), this.#reconcile().catch(failed), this.#forgetReleased()])
        .finally(() => {
          const parts = failure === undefined ? [this.#outage.succeeded()].filter((line) => line !== undefined) : this.#outage.failed(failure.error)
          if (parts !== undefined && parts.length > 0 && !this.#closed) logHost(...parts)
          this.#schedule(this.#pollMs)
        })
    }, delay)
    this.#timer.unref?.()
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#backoff.endPauses()
    for (const stop of this.#stops) stop()
    for (const end of [...this.streams]) end()
    await this.watcher.close()
    // Posted before the store closes: those messages were accepted.
    await Promise.all([...this.#handingOver])
  }
}

/** Whether the store has the session now (a store without `has` or `header` reads it). */
async function stored(store: ClusterStore, id: string): Promise<boolean> {
  if (store.has !== undefined) return store.has(id)
  return (await (store.header === undefined ? store.read(id) : store.header(id))) !== undefined
}

/**
 * The answer to a send under an id the log admitted through another send than the entry's run
 * ({@link admittedElsewhere}): 422 for another message, else that admission's receipt as the log
 * gives it (no owner answered the entry, so no queue position or agent status).
 */
function judged(session: string, messageId: string, admitted: LogAdmission, relayed: RelayedRequest): RelayOutcome {
  const differs = reuseDifference(admitted, relayed.body as unknown as SentMessage)
  if (differs !== undefined) throw clientMessageIdReused(messageId, differs)
  const { lane, delivery, seq } = admitted
  const lookup = `/v1/sessions/${encodeURIComponent(session)}/messages/${encodeURIComponent(messageId)}`
  return { status: 202, body: { accepted: true, messageId, duplicate: true, lane, delivery, ...(delivery !== 'followup' && lane === 'next-turn' ? { rerouted: true } : {}), seq, durable: true, lookup } }
}
