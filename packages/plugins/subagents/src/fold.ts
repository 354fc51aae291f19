import type { SessionEvent, TurnEndReason } from '@bosun/core'
import './events.js'

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

/** What the parent's log says about its children: who was spawned (in order) and which epochs are settled. */
export interface ParentRecord {
  spawned: Map<string, { callId: string; agent?: string; mode: 'foreground' | 'background'; depth: number }>
  settled: Map<string, Set<number>>
}

export function foldParent(events: readonly SessionEvent[], seedLength: number): ParentRecord {
  const record: ParentRecord = { spawned: new Map(), settled: new Map() }
  for (let i = seedLength; i < events.length; i++) noteParentEvent(record, events[i]!)
  return record
}

export function noteParentEvent(record: ParentRecord, event: SessionEvent): void {
  if (event.type === 'subagent/spawned') {
    const { childId, callId, agent, mode, depth } = event.data as { childId: string; callId: string; agent?: string; mode: 'foreground' | 'background'; depth: number }
    record.spawned.set(childId, { callId, mode, depth, ...(agent === undefined ? {} : { agent }) })
  } else if (event.type === 'subagent/settled') {
    const { childId, epoch } = event.data as { childId: string; epoch: number }
    let epochs = record.settled.get(childId)
    if (!epochs) record.settled.set(childId, (epochs = new Set()))
    epochs.add(epoch)
  }
}
