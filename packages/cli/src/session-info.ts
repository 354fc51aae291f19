import { Inbox, Session, foldConsumedWork, messageText, summarizeLog, type InboxSplice, type SessionEvent, type TurnEndReason, type UserMessage } from '@bosun/core'
import type { SessionLog } from './session-reader.js'

/** What `sessions list` and `sessions show` tell about a session, computed from its log alone. */
export interface SessionInfo {
  id: string
  createdAt: number
  parent: string | undefined
  /** Events copied from the parent (fork seed, marker included). */
  seedLength: number
  events: number
  /** Turns started (the last turn number). */
  turns: number
  /** Time of the last event (the creation time for an empty log). */
  lastActivity: number
  /** Text of the first message a user sent (the first queued one if none ran yet): `summarizeLog`'s preview, at most `FIRST_PROMPT_MAX` code points. */
  firstPrompt: string | undefined
  /** Each turn: its number, its first message, and how it ended (`undefined`: still open). */
  turnList: { turn: number; prompt: string | undefined; reason: TurnEndReason | undefined; startedAt: number; endedAt: number | undefined }[]
  /** Messages still waiting, rebuilt exactly as the agent's inbox would be. */
  pending: { nextTurn: readonly UserMessage[]; nextStep: readonly UserMessage[] }
}

export function sessionInfo(log: SessionLog): SessionInfo {
  const { header, events } = log
  const turnList: SessionInfo['turnList'] = []
  let current: SessionInfo['turnList'][number] | undefined
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        current = { turn: (event.data as { turn: number }).turn, prompt: undefined, reason: undefined, startedAt: event.time, endedAt: undefined }
        turnList.push(current)
        break
      case 'user/message':
        if (current && current.prompt === undefined) current.prompt = messageText(event.data as UserMessage)
        break
      case 'turn/end':
        if (current) {
          current.reason = (event.data as { reason: TurnEndReason }).reason
          current.endedAt = event.time
        }
        current = undefined
        break
    }
  }
  // The inbox first: its replay checks every splice (a damaged one is INVALID_PERSISTED_SPLICE),
  // which the fold of claimed prompts reads without checking.
  const inbox = pendingOf(log)
  claimedPrompts(events, turnList)
  // What a store that keeps summaries lists (session-list.ts): the same fold.
  const summary = summarizeLog(header, events)
  return {
    id: header.id,
    createdAt: header.createdAt,
    parent: header.parent,
    seedLength: header.seedLength ?? 0,
    events: summary.length,
    turns: summary.turns,
    lastActivity: summary.lastActivity,
    firstPrompt: summary.firstPrompt ?? undefined,
    turnList,
    pending: { nextTurn: inbox.nextTurn, nextStep: inbox.nextStep },
  }
}

/**
 * A turn whose input never reached a step (blocked by a pre-step plugin, aborted or failed first)
 * has no `user/message`: its prompt is then the first message it claimed, as it was queued.
 */
function claimedPrompts(events: readonly SessionEvent[], turnList: SessionInfo['turnList']): void {
  if (turnList.every((turn) => turn.prompt !== undefined)) return
  const queued = new Map<string, UserMessage>()
  for (const event of events) {
    if (event.type === 'agent/inbox/spliced') for (const message of (event.data as InboxSplice).inserted) queued.set(message.id, message)
  }
  const work = new Map(foldConsumedWork(events).turns.map((turn) => [turn.turn, turn]))
  for (const turn of turnList) {
    if (turn.prompt !== undefined) continue
    const claimed = work.get(turn.turn)
    const first = claimed && [...claimed.unstepped, ...(claimed.inFlight ?? [])][0]
    const message = first === undefined ? undefined : queued.get(first)
    if (message) turn.prompt = messageText(message)
  }
}

/** The pending queues, replayed by the core's own Inbox from a copy of the log (nothing is written). */
function pendingOf(log: SessionLog): Inbox {
  return new Inbox(new Session(log.header, [...log.events] as SessionEvent[]))
}

/** `2026-03-12 14:22:05` in local time. */
export function formatTime(epochMs: number): string {
  const date = new Date(epochMs)
  const pad = (value: number) => String(value).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** `03-12 14:22`: {@link formatTime} without the year and the seconds, for a narrow terminal. */
export function formatShortTime(epochMs: number): string {
  return formatTime(epochMs).slice(5, 16)
}

/** `850ms`, `1.2s`, `3m 05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes}m ${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`
}

/** One word for how a turn ended: `completed`, `blocked by rate-limit`, `error RATE_LIMIT`, `aborted`. */
export function reasonLabel(reason: TurnEndReason | undefined): string {
  if (reason === undefined) return 'open'
  switch (reason.kind) {
    case 'blocked':
      return `blocked by ${reason.by}`
    case 'error':
      return `error ${reason.error.code}`
    case 'aborted':
      return reason.reason ? `aborted (${reason.reason})` : 'aborted'
    default:
      return reason.kind
  }
}
