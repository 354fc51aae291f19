import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN, type SessionEvent, type TurnEndReason } from '@bosun/core'
import type { SubagentSettled, SubagentSpawned } from './events.js'

/** One settlement of a child, found in its own log. */
export interface Settlement {
  /** 1 for the first settlement, +1 for each later one. */
  epoch: number
  turn: number
  reason: TurnEndReason
  /** The last `report` content of the turn, else the last assistant text. */
  answer: string
}

export interface ChildState {
  settlements: Settlement[]
  /** The log ends settled: nothing pending that the child would run by itself, no live child of its own. */
  settledAtEnd: boolean
  /** Input is queued in the child's inbox. */
  pending: boolean
}

/**
 * Folds a child's log (its own history, after the fork seed) into its settlements. A settlement
 * is a `turn/end` after which the child is idle for good: its inbox is empty — or the turn was
 * aborted (the input stays parked), or closed `interrupted` by crash repair unless `resume` is
 * asked — and none of its own children is live. A pure function of the log: recovery recomputes
 * the same epochs, hence the same message ids.
 */
export function foldChild(events: readonly SessionEvent[], seedLength: number, resume: boolean): ChildState {
  const queued = { 'next-turn': 0, 'next-step': 0 }
  const live = new Set<string>()
  const settlements: Settlement[] = []
  let report: string | undefined
  let text: string | undefined
  let settledAtEnd = false
  for (let i = seedLength; i < events.length; i++) {
    const event = events[i]!
    switch (event.type) {
      case 'agent/inbox/spliced': {
        const data = event.data as { target: 'next-turn' | 'next-step'; removedCount?: number; inserted: readonly unknown[] }
        queued[data.target] += data.inserted.length - (data.removedCount ?? 0)
        if (queued['next-turn'] + queued['next-step'] > 0) settledAtEnd = false
        break
      }
      case 'turn/start':
        report = undefined
        settledAtEnd = false
        break
      case 'tool/call': {
        const data = event.data as { name: string; arguments: string }
        if (data.name === 'report') {
          const content = parseContent(data.arguments)
          if (content !== undefined) report = content
        }
        break
      }
      case 'assistant/message': {
        const blocks = (event.data as { message: { content: readonly { type: string; text?: string }[] } }).message.content
        const said = blocks.filter((block) => block.type === 'text').map((block) => block.text ?? '').join('')
        if (said.trim() !== '') text = said
        break
      }
      case 'subagent/spawned':
        live.add((event.data as { childId: string }).childId)
        break
      case 'subagent/sent':
        live.add((event.data as { childId: string }).childId)
        break
      case 'subagent/settled':
        live.delete((event.data as { childId: string }).childId)
        break
      case 'turn/end': {
        const { turn, reason } = event.data as { turn: number; reason: TurnEndReason }
        const pending = queued['next-turn'] + queued['next-step'] > 0
        const halted = reason.kind === 'aborted' || (reason.kind === 'interrupted' && !resume)
        if (live.size === 0 && (!pending || halted)) {
          settlements.push({ epoch: settlements.length + 1, turn, reason, answer: report ?? text ?? '' })
          settledAtEnd = true
        }
        break
      }
    }
  }
  return { settlements, settledAtEnd, pending: queued['next-turn'] + queued['next-step'] > 0 }
}

function parseContent(json: string): string | undefined {
  try {
    const value = JSON.parse(json) as { content?: unknown }
    return typeof value?.content === 'string' ? value.content : undefined
  } catch {
    return undefined
  }
}

/** What the parent's log says about one child it spawned. */
export interface SpawnRecord {
  callId: string
  agent?: string
  mode: 'foreground' | 'background'
  depth: number
  /** The parent's turn the spawn happened in (a fork child is seeded with the turns before it). */
  turn: number
  /** The `spawn_agent` arguments of the call, read from its `tool/call` (recovery admits the task from them). */
  task?: string
  context?: 'fresh' | 'fork'
  /** A foreground spawn's tool result: `lost` when crash repair wrote it (the answer never reached the model). */
  result?: 'delivered' | 'lost'
}

/** What the parent's log says about its children: who was spawned (in order) and which epochs are settled. */
export interface ParentRecord {
  spawned: Map<string, SpawnRecord>
  /** Per child, each settled epoch's `subagent/settled` data. */
  settled: Map<string, Map<number, SubagentSettled>>
  /** Scratch for the fold: the current turn, the open `spawn_agent` calls' arguments, the child of each call id. */
  turn: number
  calls: Map<string, { task?: string; context?: 'fresh' | 'fork' }>
  byCall: Map<string, string>
}

export function foldParent(events: readonly SessionEvent[], seedLength: number): ParentRecord {
  const record: ParentRecord = { spawned: new Map(), settled: new Map(), turn: 0, calls: new Map(), byCall: new Map() }
  for (let i = seedLength; i < events.length; i++) noteParentEvent(record, events[i]!)
  return record
}

/** A tool result crash repair wrote for a call the crash cut: its real result never reached the model. */
const REPAIRED = [TOOL_OUTCOME_UNKNOWN, TOOL_NOT_STARTED].map((text) => text.slice(0, text.indexOf(':') + 1))

export function noteParentEvent(record: ParentRecord, event: SessionEvent): void {
  switch (event.type) {
    case 'turn/start':
      record.turn = (event.data as { turn: number }).turn
      break
    case 'tool/call': {
      const { name, callId, arguments: json } = event.data as { name: string; callId: string; arguments: string }
      if (name === 'spawn_agent') record.calls.set(callId, parseSpawnArgs(json))
      break
    }
    case 'tool/result': {
      const { callId, content } = event.data as { callId: string; content: readonly { type: string; text?: string }[] }
      record.calls.delete(callId) // a refused spawn: no child to give its arguments to
      const spawned = record.spawned.get(record.byCall.get(callId) ?? '')
      if (spawned?.mode !== 'foreground' || spawned.callId !== callId) break
      const text = content.map((block) => block.text ?? '').join('')
      spawned.result = REPAIRED.some((prefix) => text.startsWith(prefix)) ? 'lost' : 'delivered'
      break
    }
    case 'subagent/spawned': {
      const { childId, callId, agent, mode, depth } = event.data as SubagentSpawned
      const call = record.calls.get(callId) ?? {}
      record.calls.delete(callId)
      record.byCall.set(callId, childId)
      record.spawned.set(childId, { callId, mode, depth, turn: record.turn, ...call, ...(agent === undefined ? {} : { agent }) })
      break
    }
    case 'subagent/settled': {
      const data = event.data as SubagentSettled
      let epochs = record.settled.get(data.childId)
      if (!epochs) record.settled.set(data.childId, (epochs = new Map()))
      epochs.set(data.epoch, data)
      break
    }
  }
}

function parseSpawnArgs(json: string): { task?: string; context?: 'fresh' | 'fork' } {
  try {
    const { task, context } = JSON.parse(json) as { task?: unknown; context?: unknown }
    return { ...(typeof task === 'string' ? { task } : {}), ...(context === 'fork' || context === 'fresh' ? { context } : {}) }
  } catch {
    return {}
  }
}
