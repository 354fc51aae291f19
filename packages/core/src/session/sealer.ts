import { performance } from 'node:perf_hooks'
import type { EventLog } from './event-log.js'
import { sessionLog, setSealing, type Session } from './session.js'

/** `createAgent({ logPages })`: see docs/architecture.md, "Sealed log pages". */
export interface LogPagesOptions {
  /** A session is sealed once its log has not grown for this long (checked every `idleMs`: so after 1–2 × `idleMs`). Default 30,000. */
  idleMs?: number
  /** Events per sealed page. Default 256. */
  pageEvents?: number
}

export const DEFAULT_SEAL_IDLE_MS = 30_000
export const DEFAULT_PAGE_EVENTS = 256

/** The JSON Schema of `createAgent`'s `logPages` option: the one place its rules are written. */
export const LOG_PAGES_SCHEMA = {
  anyOf: [
    { const: false },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        idleMs: { type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'Idle time before a session is sealed, in ms. Default 30000.' },
        pageEvents: { type: 'integer', minimum: 1, maximum: 65_536, description: 'Events per sealed page. Default 256.' },
      },
    },
  ],
  'x-expected': 'false, or an object { idleMs?, pageEvents? } of positive integers',
} as const

/** What the sweeper needs of the session's agent: is a driver running its turns. */
export interface SealingOwner {
  readonly status: string
}

/**
 * One session's sealing state. The sweeper's set holds these strongly (not a WeakSet or WeakRef:
 * an entry per session in a weak registry made every GC pay for it — "Performance problems
 * found", item 7). So that the set is never what keeps a session alive, a candidate leaves it as
 * soon as the sweeper cannot seal it without a new mark: when it is sealed, closed, or seen with a
 * turn open (a running turn, or one that never ends: its `turn/end` would mark it again). What
 * stays is a session idle at a `turn/end` (sealed and dropped 1–2 × `idleMs` later; a memory
 * store may still hold its log) or a driver between its `turn/end` and going idle (microtasks).
 */
export class Sealing {
  /** The log's length when last looked at (-1: not since it went idle), and when (performance.now()). */
  seenLength = -1
  seenAt = 0
  closed = false
  /** In the sweeper's set of candidates. */
  queued = false

  constructor(
    readonly session: Session,
    readonly idleMs: number,
    readonly pageEvents: number,
    readonly owner: SealingOwner | undefined,
  ) {}

  /**
   * The session went idle (loaded with history, or a turn ended): a candidate from now on. It runs
   * at every `turn/end`, so it reads no clock and touches the set only when the session is not in
   * it yet: the sweep that first sees the log at its new length notes the time (sealed 1–2 ×
   * `idleMs` after the last event, as before).
   */
  markIdle(): void {
    if (this.closed) return
    this.seenLength = -1
    if (this.queued) return
    this.queued = true
    candidates.add(this)
    arm(this.idleMs)
  }

  close(): void {
    this.closed = true
    drop(this)
  }
}

function drop(sealing: Sealing): void {
  sealing.queued = false
  candidates.delete(sealing)
  if (candidates.size === 0) disarm()
}

/** No candidate left: no timer either (the next `markIdle` arms one), and the period starts over. */
function disarm(): void {
  // A timer armed through another `setTimeout` (a test's fake timers, since restored) is gone already.
  if (timer !== undefined && armedWith === setTimeout) clearTimeout(timer)
  timer = undefined
  period = Infinity
}

/** Sessions that may have something to seal. */
const candidates = new Set<Sealing>()
let timer: ReturnType<typeof setTimeout> | undefined
/** When the armed timer is due (Date.now()), and the `setTimeout` that armed it: see `arm`. */
let due = 0
let armedWith: unknown
/** The sweep period: the smallest `idleMs` among the candidates since the set was last empty. */
let period = Infinity
/** The sweep running (or queued), if any: sweeps never overlap. */
let running: Promise<number> | undefined
/** A sweep holds the event loop at most this long before it yields (10,000 sessions must not block it). */
const SLICE_MS = 5
/**
 * At most this many events (rounded to whole pages) are sealed at a time, ~5 ms at ~5 µs an event:
 * a session loaded with a long history is sealed over several slices, not in one long call.
 */
const SEAL_CHUNK_EVENTS = 1024

/** Makes `session` sealable (core-internal: `createAgent` calls it unless `logPages: false`). */
export function enableLogPages(session: Session, options: LogPagesOptions, owner: SealingOwner | undefined): void {
  const sealing = new Sealing(session, options.idleMs ?? DEFAULT_SEAL_IDLE_MS, options.pageEvents ?? DEFAULT_PAGE_EVENTS, owner)
  setSealing(session, sealing)
  if (session.length > 0) sealing.markIdle()
}

/**
 * Seals every idle session now, without waiting for its idle time: those whose agent is not
 * running a turn, up to their last `turn/end` (which stays live). For benchmarks and hosts that want the memory back
 * at once (before a heap measurement, before a snapshot). Resolves with the number of sessions
 * sealed once the sweep is done (it yields to the event loop between slices of ~5 ms).
 */
export function sealIdleSessions(): Promise<number> {
  return enqueue(true)
}

/** How many sessions wait for a sweep (tests). */
export function sealingCandidates(): number {
  return candidates.size
}

function arm(idleMs: number): void {
  if (idleMs < period) {
    period = idleMs
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  // A timer armed while a test ran fake timers is dropped without running when real timers come
  // back: one armed through another `setTimeout` than today's, or overdue by more than a period,
  // is taken as lost and replaced, or nothing would sweep again in this process.
  if (timer !== undefined && (armedWith !== setTimeout || Date.now() > due + period)) timer = undefined
  if (timer !== undefined || running !== undefined) return
  due = Date.now() + period
  armedWith = setTimeout
  timer = setTimeout(onTimer, period)
  // The sweeper never keeps a process alive (`unref` is absent where a timer is a number).
  timer.unref?.()
}

function onTimer(): void {
  timer = undefined
  void enqueue(false)
}

function enqueue(force: boolean): Promise<number> {
  const previous = running
  const sweep = (previous === undefined ? sweepAll(force) : previous.then(() => sweepAll(force), () => sweepAll(force)))
  running = sweep
  void sweep.then(settled, settled)
  function settled(): void {
    if (running !== sweep) return
    running = undefined
    if (candidates.size === 0) period = Infinity
    else arm(period)
  }
  return sweep
}

async function sweepAll(force: boolean): Promise<number> {
  // Never synchronously inside the caller (an observer calling sealIdleSessions mid-append).
  await null
  let sealed = 0
  let sliceStart = performance.now()
  for (const sealing of candidates) {
    let sealedSome = false
    for (;;) {
      let now = performance.now()
      if (now - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve))
        now = sliceStart = performance.now()
      }
      let outcome: Outcome
      try {
        outcome = visit(sealing, force, now)
      } catch (error) {
        // A seal that fails (out of memory in zlib) leaves the log as it was: report it, drop the candidate.
        drop(sealing)
        sealing.session.reportError(error, 'sealing the session log')
        break
      }
      if (outcome !== 'none') sealedSome = true
      // 'more': a chunk was sealed and more is sealable; checked again (idle, no turn) after it.
      if (outcome !== 'more') break
    }
    if (sealedSome) sealed++
  }
  return sealed
}

type Outcome = 'none' | 'sealed' | 'more'

/** Seals (a chunk of) one candidate if it is idle. */
function visit(sealing: Sealing, force: boolean, now: number): Outcome {
  if (sealing.closed) {
    drop(sealing)
    return 'none'
  }
  const log = sessionLog(sealing.session)
  if (!force) {
    if (log.length !== sealing.seenLength) {
      sealing.seenLength = log.length
      sealing.seenAt = now
      return 'none'
    }
    if (now - sealing.seenAt < sealing.idleMs) return 'none'
  }
  const through = sealableThrough(log)
  // A turn still open: its turn/end marks the session again. Dropped even while its driver runs,
  // so that a turn that never ends does not keep the session (and its agent) in the set for good.
  if (through === undefined) {
    drop(sealing)
    return 'none'
  }
  // Never inside a turn: observers and projections may still hold this turn's events. A running
  // driver whose log ends at a turn/end stays a candidate: it is between that turn/end and going
  // idle (or opening its next turn) for a few microtasks, and going idle marks nothing.
  if (sealing.owner?.status === 'running') return 'none'
  // Whole pages from where the next page starts (a short last page is merged and sealed again).
  const size = sealing.pageEvents
  const last = log.pages[log.pages.length - 1]
  const start = last !== undefined && last.count < size ? last.first : log.base
  const limit = Math.min(through, start + size * Math.max(1, Math.floor(SEAL_CHUNK_EVENTS / size)))
  const count = log.seal(limit, size)
  if (limit < through) return 'more'
  drop(sealing)
  return count > 0 ? 'sealed' : 'none'
}

/**
 * The seq of the log's last `turn/end`, or `undefined` while a turn is open (a `turn/start` after
 * it). Everything before that `turn/end` may be sealed; the `turn/end` itself stays live, so that
 * reading the last event (`session.last`, `events.at(-1)`: a host's session list, its open-turn
 * check scanning back to the last turn boundary) never decodes a page. Scans the tail only.
 */
function sealableThrough(log: EventLog): number | undefined {
  const tail = log.tail
  for (let i = tail.length - 1; i >= 0; i--) {
    const type = tail[i]!.type
    if (type === 'turn/end') return log.base + i
    if (type === 'turn/start') return undefined
  }
  return log.base
}
