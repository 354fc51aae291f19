import { TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN, type SessionEvent } from '@bosun/core'
import type { SubagentSent, SubagentSettled, SubagentSpawned } from './events.js'

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
  /** Per child, how many `send_to_agent` follow-ups it was given. */
  sends: Map<string, number>
  /** Children whose last record here is a `subagent/settled` (none spawned or sent since). */
  lastSettled: Set<string>
  /** Scratch for the fold: the current turn, the open `spawn_agent` calls' arguments, the child of each call id. */
  turn: number
  calls: Map<string, { task?: string; context?: 'fresh' | 'fork' }>
  byCall: Map<string, string>
}

export function foldParent(events: readonly SessionEvent[], seedLength: number): ParentRecord {
  const record: ParentRecord = { spawned: new Map(), settled: new Map(), sends: new Map(), lastSettled: new Set(), turn: 0, calls: new Map(), byCall: new Map() }
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
      record.lastSettled.delete(childId)
      break
    }
    case 'subagent/sent': {
      const { childId } = event.data as SubagentSent
      record.sends.set(childId, (record.sends.get(childId) ?? 0) + 1)
      record.lastSettled.delete(childId)
      break
    }
    case 'subagent/settled': {
      const data = event.data as SubagentSettled
      let epochs = record.settled.get(data.childId)
      if (!epochs) record.settled.set(data.childId, (epochs = new Map()))
      epochs.set(data.epoch, data)
      record.lastSettled.add(data.childId)
      break
    }
  }
}

/**
 * The parent's log alone shows the child settled for good, so recovery need not open it: its last
 * record is a settlement, and it has at least one settled epoch per input the parent gave it (the
 * task, each send). Conservative: an input that joined a running turn (one epoch for two inputs)
 * leaves the child to be opened and folded, never the other way round — a settlement can be
 * missed only if the child ran on input its parent did not give (see docs/subagents.md).
 */
export function settledForGood(record: ParentRecord, childId: string): boolean {
  const epochs = record.settled.get(childId)?.size ?? 0
  return record.lastSettled.has(childId) && epochs >= 1 + (record.sends.get(childId) ?? 0)
}

function parseSpawnArgs(json: string): { task?: string; context?: 'fresh' | 'fork' } {
  try {
    const { task, context } = JSON.parse(json) as { task?: unknown; context?: unknown }
    return { ...(typeof task === 'string' ? { task } : {}), ...(context === 'fork' || context === 'fresh' ? { context } : {}) }
  } catch {
    return {}
  }
}
