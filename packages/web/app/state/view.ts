/**
 * The view state of one session: what the timeline, the queue dock and the inspector draw. It is a
 * pure fold of the log events received (plus the latest derived `session.status` frame), so a
 * reload, a reconnect or a second tab that receives the same events draws the same page.
 */
import { Rows } from './rows.js'
import type { Lane, TurnEndReason, Usage, WireEvent, WireMessage } from './wire.js'

/** A message a turn claimed that has not reached a step yet (the hand-off window). */
export interface InFlight { message: WireMessage; lane: Lane; turn: number }

/** Input that entered a step: the turn's prompt at step 0, a steer at a later step. */
export interface StepInput { message: WireMessage; seq: number; lane: Lane | null; steer: boolean }

export interface ToolCard {
  index: number
  callId: string | null
  name: string
  args: string
  status: 'streaming' | 'running' | 'done' | 'error' | 'canceled'
  result: string | null
}

export type StepPart = { kind: 'text'; text: string } | { kind: 'reasoning'; text: string } | { kind: 'tool'; card: ToolCard }

export interface RetryRow { seq: number; attempt: number; delayMs: number; error: { code: string; message: string } }

/** A child agent spawned in a step (`subagent/spawned`), updated by its settlements wherever they were logged. */
export interface ChildView {
  childId: string
  callId: string
  mode: 'foreground' | 'background'
  profile: string | null
  depth: number
  status: 'running' | 'settled'
  /** Settlements so far (the last settled epoch). */
  epochs: number
  /** How the child's last settling turn ended (`completed`, `aborted`, …); null if not recorded. */
  reason: string | null
  /** The last settlement's answer, whole (the card shows a one-line preview). */
  answer: string | null
}

export interface StepView {
  step: number
  startSeq: number
  startTime: number
  endTime: number | null
  finish: string | null
  inputs: StepInput[]
  parts: StepPart[]
  usage: Usage | null
  interrupted: boolean
  retries: RetryRow[]
  children: ChildView[]
}

export interface RejectRow { seq: number; by: string; metadata: unknown; messages: WireMessage[] }

export interface TurnView {
  kind: 'turn'
  key: string
  turn: number
  startSeq: number
  startTime: number
  endTime: number | null
  /** The seq of its `turn/end`; null while it runs. */
  endSeq: number | null
  reason: TurnEndReason | null
  /** Copied from the parent session when this one was forked. */
  seed: boolean
  steps: StepView[]
  rejected: RejectRow | null
}

export interface CompactionView {
  kind: 'compaction'
  key: string
  startSeq: number
  time: number
  reason: string
  summary: string | null
  firstKeptSeq: number | null
  done: boolean
}

export type TimelineItem = TurnView | CompactionView

export type SessionStatus = 'idle' | 'running' | 'maintenance' | string

export interface SessionView {
  /** The last event seq folded; -1 before any. Frames at or below it are ignored (resume overlap). */
  lastSeq: number
  status: SessionStatus
  /** The seq the status was last said at (a derived frame older than the fold never wins). */
  statusSeq: number
  /** The seq of the last splice that put input in a queue; -1 for none. */
  queuedSeq: number
  openTurn: number | null
  queues: Record<Lane, WireMessage[]>
  inFlight: InFlight[]
  /** The timeline. {@link Rows}, not an array: a batch copies the path to what it changes (rows.ts). */
  items: Rows<TimelineItem>
  /** Turn number → index in `items` (undefined: no such turn). */
  turnIndex: Rows<number | undefined>
  /** Every event received, in seq order (the inspector). */
  events: Rows<WireEvent>
  /** Seq of `session/end-seed` for a fork: events up to it are the parent's. */
  seedEnd: number | null
  /** Child id → the turn and step its card is in. */
  childIndex: Record<string, { turn: number; step: number }>
}

export function emptySession(): SessionView {
  return {
    lastSeq: -1,
    status: 'idle',
    statusSeq: -1,
    queuedSeq: -1,
    openTurn: null,
    queues: { 'next-turn': [], 'next-step': [] },
    inFlight: [],
    items: Rows.empty(),
    turnIndex: Rows.empty(),
    events: Rows.empty(),
    seedEnd: null,
    childIndex: {},
  }
}

/** Steering the session has accepted but the model has not seen: drawn at the conversation tail. */
export function pendingSteering(view: SessionView): WireMessage[] {
  return [...view.inFlight.filter((entry) => entry.lane === 'next-step').map((entry) => entry.message), ...view.queues['next-step']]
}
