/**
 * Subagent children in the parent's timeline: `subagent/spawned` puts a card in the step that was
 * open when it was logged (the step whose `spawn_agent` call made the child); each
 * `subagent/settled` and `subagent/sent` updates that card, wherever it was logged (a background
 * child often settles after the parent's turn ended). Events about a child whose spawn the fold
 * never saw are ignored, like any fragment.
 */
import type { Draft } from './draft.js'
import type { ChildView } from './view.js'
import type { EventData } from './wire.js'

export function childSpawned(draft: Draft, { childId, callId, agent, mode, depth }: EventData['subagent/spawned']): void {
  const turn = draft.view.openTurn
  if (turn === null || draft.view.childIndex[childId] !== undefined) return
  const owner = draft.turn(turn)
  const last = owner?.steps[owner.steps.length - 1]
  if (last === undefined) return
  const step = draft.step(turn, last.step)!
  step.children.push({ childId, callId, mode, profile: agent ?? null, depth, status: 'running', epochs: 0, reason: null, answer: null })
  draft.own('childIndex')[childId] = { turn, step: last.step }
}

export function childSettled(draft: Draft, { childId, epoch, reason, answer }: EventData['subagent/settled']): void {
  // A repeated or older epoch changes nothing (the plugin writes each epoch once; a fold is idempotent anyway).
  updateChild(draft, childId, (child) => (epoch <= child.epochs ? child : { ...child, status: 'settled', epochs: epoch, reason: reason ?? null, answer: answer ?? null }))
}

/** `send_to_agent` queued a follow-up in the child: it is live again. */
export function childSent(draft: Draft, { childId }: EventData['subagent/sent']): void {
  updateChild(draft, childId, (child) => ({ ...child, status: 'running' }))
}

function updateChild(draft: Draft, childId: string, change: (child: ChildView) => ChildView): void {
  const where = draft.view.childIndex[childId]
  if (where === undefined) return
  const step = draft.step(where.turn, where.step)
  const at = step?.children.findIndex((child) => child.childId === childId) ?? -1
  if (step === null || at < 0) return
  const next = change(step.children[at]!)
  if (next !== step.children[at]) step.children[at] = next
}
