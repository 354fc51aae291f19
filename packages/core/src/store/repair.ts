import type { Inbox } from '../inbox/inbox.js'
import type { InboxSplice, InboxTarget } from '../inbox/types.js'
import type { BosunEventMap, SessionEvent, TurnEndReason } from '../session/events.js'
import { derivedFrom, type UserMessage } from '../session/messages.js'
import type { Session } from '../session/session.js'
import { BlockAssembler } from '../loop/assembler.js'
import type { ModelChunk } from '../model.js'

/** What {@link closeOpenTurn} did, for logs and tests. */
export interface RepairReport {
  /** The turn that a crash left open, if there was one. */
  turn?: number
  /** Synthetic results written: calls never started, and calls whose outcome is unknown. */
  notStarted: string[]
  outcomeUnknown: string[]
  /** Ids of claimed-but-never-stepped messages put back at the head of the queue each was claimed from. */
  requeued: string[]
  /**
   * Ids of the queued messages (the whole queue, in order) when the log ends idle although a wake
   * was owed: a crash (or a lost lease) fell between a send's admission and its turn's start. Owed
   * when input pending at the last turn end is still pending after an end the driver runs on from
   * (`completed`, `blocked`, `max-tokens`, `interrupted`, an `error` whose model call failed), or when input first queued after that
   * end (or before any turn) was sent with a wake — its source says `delivery: 'followup' | 'steer'`,
   * as `agent.followup()` / `agent.steer()` record it (and the host, ACP and the subagents plugin
   * through them), or, pending at an aborted end, was sent with a wake during that turn after its
   * abort (`source.afterAbort`: the live agent runs a turn for it). Not set for input that was parked: pending at an `aborted` end or an `error` end a throw caused,
   * injected, spliced in without a wake, or put back after a turn took it. Whoever resumes the
   * session wakes the agent for them, as for a repaired turn.
   */
  waiting?: string[]
}

/** Turn ends after which the driver runs the next turn for pending input (an abort or a crash parks it instead); `interrupted`: a repaired turn, whose queue its owner woke for. */
const CONTINUING_ENDS = new Set(['completed', 'blocked', 'max-tokens', 'interrupted'])

/**
 * The abort reason of a process going away (a host's `close()` once its grace is over, a deploy's
 * SIGTERM): `abort(SHUTDOWN_ABORT_REASON)` before `close()`. Not a user's Stop, nor a user leaving
 * (`close()` alone, reason `closed`: `bosun chat`'s exit parks the queue): input queued behind the
 * turn it ended is owed its turns once the session is resumed, as after a crash.
 */
export const SHUTDOWN_ABORT_REASON = 'shutdown'

/**
 * Whether the queue was owed its turns after this end: one of {@link CONTINUING_ENDS}; a failed
 * model call (`error` marked `model`; a throw parks); or a turn a shutdown aborted
 * ({@link SHUTDOWN_ABORT_REASON}).
 */
function continuesAfter(reason: TurnEndReason): boolean {
  return CONTINUING_ENDS.has(reason.kind) || (reason.kind === 'error' && reason.model === true) || (reason.kind === 'aborted' && reason.reason === SHUTDOWN_ABORT_REASON)
}
/** The `source.delivery` the agent's waking sends record (`followup`, `steer`); `inject` queues without a wake. */
const WAKING_DELIVERIES = new Set(['followup', 'steer'])

export const TOOL_NOT_STARTED =
  'TOOL_NOT_STARTED: the session stopped (crash or kill) before this tool call started. It did not run; call it again if it is still needed.'
export const TOOL_OUTCOME_UNKNOWN =
  'TOOL_OUTCOME_UNKNOWN: the session stopped (crash or kill) while this tool call was running. It may or may not have taken effect: verify its effects before repeating it.'

/**
 * Closes a turn that a crash left open, moving forward rather than rolling back (seed 000,
 * "turn/start 和 turn/end 不对称"): a model stream cut mid-way keeps its delivered prefix as an
 * interrupted `assistant/message` (as an abort would); a tool call of the last assistant message that has no
 * `tool/call` gets a TOOL_NOT_STARTED error result; a `tool/call` without a result gets
 * TOOL_OUTCOME_UNKNOWN; then `step/end` (if a step is open) and `turn/end {kind: 'interrupted'}`.
 * Messages the open turn claimed but never put into a step (nor anything a pre-step derived from
 * them) go back to the head of the queue each was claimed from — appended before `turn/end`, so
 * accepted work is never dropped by a crash, nor by a tear in this repair.
 *
 * Reads only the events of the open turn (a backwards scan to its `turn/start`).
 */
export function closeOpenTurn(session: Session, inbox: Inbox): RepairReport {
  const report: RepairReport = { notStarted: [], outcomeUnknown: [], requeued: [] }
  const events = session.events
  let start = -1
  for (let i = events.length - 1; i >= (session.header.seedLength ?? 0); i--) {
    const type = events[i]!.type
    if (type === 'turn/end') {
      noteWaiting(report, events, session.header.seedLength ?? 0, i, inbox, continuesAfter((events[i]!.data as BosunEventMap['turn/end']).reason))
      return report
    }
    if (type === 'turn/start') {
      start = i
      break
    }
  }
  if (start < 0) {
    noteWaiting(report, events, session.header.seedLength ?? 0, -1, inbox, false)
    return report
  }
  const turn = (events[start]!.data as BosunEventMap['turn/start']).turn
  report.turn = turn

  const claimed = claimedSince(events, session.header.seedLength ?? 0, start)
  const stepped = new Set<string>()
  let rejectedAt = -1
  let openStep = 0
  let lastCalls: { id: string; name: string; step: number }[] = []
  /** Chunks of the open step's model call that never became an assistant/message. */
  let chunks: ModelChunk[] = []
  const called = new Map<string, { name: string; step: number }>()
  const resulted = new Set<string>()
  for (let i = start + 1; i < events.length; i++) {
    const event = events[i] as SessionEvent
    switch (event.type) {
      case 'user/message': {
        const message = event.data as UserMessage
        stepped.add(message.id)
        for (const id of derivedFrom(message)) stepped.add(id)
        break
      }
      case 'agent/pre-step/rejected':
        // Claim is the commit point: what a pre-step rejected is not re-queued by recovery.
        rejectedAt = i
        break
      case 'step/start':
        openStep = (event.data as BosunEventMap['step/start']).step
        lastCalls = []
        chunks = []
        break
      case 'request/header':
      case 'llm/retry':
        chunks = []
        break
      case 'assistant/chunk':
        chunks.push((event.data as BosunEventMap['assistant/chunk']).chunk)
        break
      case 'step/end':
        openStep = 0
        break
      case 'assistant/message': {
        const { message, step, interrupted } = event.data as BosunEventMap['assistant/message']
        chunks = []
        if (interrupted) break
        lastCalls = message.content.filter((b) => b.type === 'tool-call').map((b) => ({ id: (b as { id: string }).id, name: (b as { name: string }).name, step }))
        break
      }
      case 'tool/call': {
        const call = event.data as BosunEventMap['tool/call']
        called.set(call.callId, { name: call.name, step: call.step })
        break
      }
      case 'tool/result':
        resulted.add((event.data as BosunEventMap['tool/result']).callId)
        break
    }
  }

  if (openStep > 0 && chunks.length > 0) {
    // The stream was cut by the crash: keep its delivered prefix, as an abort would.
    const assembler = new BlockAssembler(`call_${turn}_${openStep}`)
    try {
      for (const chunk of chunks) assembler.push(chunk)
    } catch {
      // A malformed chunk cannot have been logged by the loop; keep what assembled before it.
    }
    // Only what was visible: a cut tool-call fragment alone makes no (empty) assistant message.
    const message = assembler.message(true)
    if (message.content.length > 0) session.append('assistant/message', { turn, step: openStep, message, interrupted: true })
  }
  if (openStep > 0) {
    for (const call of lastCalls) {
      if (resulted.has(call.id)) continue
      const started = called.has(call.id)
      session.append('tool/result', {
        turn, step: call.step, callId: call.id, name: call.name, isError: true,
        content: [{ type: 'text', text: started ? TOOL_OUTCOME_UNKNOWN : TOOL_NOT_STARTED }],
      })
      ;(started ? report.outcomeUnknown : report.notStarted).push(call.id)
    }
    session.append('step/end', { turn, step: openStep, finish: 'error' })
  }
  // Back to the head of the queue each came from (a next-step context stays with the prompt it
  // rode with: the next turn claims it first), appended BEFORE turn/end: while turn/end is not in
  // the log the turn is still open, so a tear anywhere in this batch is repaired again on the next
  // open, and a message already back in a queue is not put back twice.
  for (const target of ['next-step', 'next-turn'] as const) {
    const unstepped = claimed.filter(
      (entry) => entry.target === target && entry.index > rejectedAt && !stepped.has(entry.message.id) && inbox.find(entry.message.id) === undefined,
    )
    if (unstepped.length === 0) continue
    inbox.requeue(target, 0, unstepped.map((entry) => entry.message))
    report.requeued.push(...unstepped.map((entry) => entry.message.id))
  }
  session.append('turn/end', { turn, reason: { kind: 'interrupted' } })
  return report
}

/**
 * Whether a wake is owed for the input pending in a log that ends idle (see
 * {@link RepairReport.waiting}): input that was pending when the last turn ended (`end`, -1 for
 * none), when the driver runs on after such an end (`continuing`), or input first queued after it
 * by a send that woke the agent. The log does not say how a message was sent, only its source: the
 * agent's sends record `delivery` there (`followup`, `steer` or `inject`, unless the caller set
 * one), which tells a waking send from one that parks. Input with no such record (a plugin's
 * parked splice, a subagent settlement parked after a cancel) or an `inject` waits for a wake, as
 * SPEC §8 says resume does. A message queued before the end and spliced in again
 * after it was not sent again: pending at the end (then reordered, edited, promoted) it counts as
 * pending then; taken before the end (a claim a plugin put back later) it is owed nothing.
 *
 * Replays the queues up to that end (splices only) — only when input is pending: a log that ends
 * with empty queues costs nothing.
 */
function noteWaiting(report: RepairReport, events: readonly SessionEvent[], seedLength: number, end: number, inbox: Inbox, continuing: boolean): void {
  if (!inbox.hasPending) return
  const pending = [...inbox.nextStep, ...inbox.nextTurn]
  const before = queuesUpTo(events, seedLength, end)
  let turnStart: number | undefined
  const owed = pending.some((message) => {
    if (before.pending.has(message.id)) {
      if (continuing || message.source.afterAbort !== true) return continuing
      // Sent with a wake after this turn was aborted (a Stop, then the next message before the
      // turn ended): queued before the end, yet the live agent runs a turn for it. Only if sent
      // during the turn that ended here: one sent before it started was parked by its Stop.
      turnStart ??= lastTurnStart(events, seedLength, end)
      return before.queued.get(message.id)! > turnStart
    }
    // Queued before the end, taken, and put back after it: not a send.
    if (before.queued.has(message.id)) return false
    return WAKING_DELIVERIES.has(message.source.delivery as string)
  })
  // The wake runs the whole queue, in order, as the live agent would have.
  if (owed) report.waiting = pending.map((message) => message.id)
}

/**
 * The queues replayed from the seed to index `end` (exclusive): the ids pending there, and the
 * index of the splice that first queued each id (its send; later ones are moves and put-backs).
 */
function queuesUpTo(events: readonly SessionEvent[], seedLength: number, end: number): { pending: Set<string>; queued: Map<string, number> } {
  const queues: Record<string, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  const queued = new Map<string, number>()
  for (let i = seedLength; i < end; i++) {
    const event = events[i]!
    if (event.type !== 'agent/inbox/spliced') continue
    const splice = event.data as InboxSplice
    queues[splice.target]!.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
    for (const message of splice.inserted) if (!queued.has(message.id)) queued.set(message.id, i)
  }
  return { pending: new Set([...queues['next-turn']!, ...queues['next-step']!].map((message) => message.id)), queued }
}

/** Index of the last `turn/start` before index `end` (-1 if none): a backwards scan of one turn. */
function lastTurnStart(events: readonly SessionEvent[], seedLength: number, end: number): number {
  for (let i = end - 1; i >= seedLength; i--) if (events[i]!.type === 'turn/start') return i
  return -1
}

/** A message a claim took: from which queue, at which log index. */
interface ClaimedEntry {
  message: UserMessage
  target: InboxTarget
  index: number
}

/**
 * The messages removed by pure-deletion (claim) splices after index `from`, in claim order.
 * Replays the queues from the seed boundary: O(log) once, only when a turn was left open.
 */
function claimedSince(events: readonly SessionEvent[], seedLength: number, from: number): ClaimedEntry[] {
  const queues: Record<string, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  const claimed: ClaimedEntry[] = []
  for (let i = seedLength; i < events.length; i++) {
    const event = events[i]!
    if (event.type !== 'agent/inbox/spliced') continue
    const splice = event.data as InboxSplice
    const removed = queues[splice.target]!.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
    if (i > from && splice.outcome === undefined) for (const message of removed) claimed.push({ message, target: splice.target, index: i })
  }
  return claimed
}
