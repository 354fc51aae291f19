/**
 * The fold: `foldFrames(view, frames)` is a pure function from the view and the frames of a host
 * stream to the next view. Folding the same frames in one batch or in any chunking gives the same
 * view (a property test checks it), and a frame at or below `lastSeq` is ignored, so a reconnect
 * that replays an overlap, a reload or a second tab converge on the same page.
 */
import type { StreamFrame } from '@bosun/host/client'
import { Draft } from './draft.js'
import { applyChunk, applyMessage, resultText, settleCards, updateCard } from './fold-step.js'
import { applySplice } from './fold-inbox.js'
import { childSent, childSettled, childSpawned } from './fold-children.js'
import { Rows } from './rows.js'
import { emptySession, type SessionView, type StepView, type TurnView } from './view.js'
import { derivedFrom, type EventData, type WireEvent } from './wire.js'

/** Folds a batch of stream frames (events and derived frames) into the view. */
export function foldFrames(view: SessionView, frames: readonly StreamFrame[]): SessionView {
  if (frames.length === 0) return view
  const draft = new Draft(view)
  for (const frame of frames) {
    if (frame.event === 'session.event') foldEvent(draft, frame.data)
    else if (frame.event === 'session.status') setStatus(draft, frame.data.status, frame.data.seq)
    else if (frame.event === 'hello') setStatus(draft, frame.data.status, frame.data.lastSeq)
    // session.inbox carries the queues the splices already gave the fold: nothing new to draw.
  }
  return draft.view
}

/** Folds log events alone (the inspector's, the tests' and a page of history's entry). */
export function foldEvents(view: SessionView, events: readonly WireEvent[]): SessionView {
  return foldFrames(view, events.map((data) => ({ event: 'session.event', data }) as const))
}

export { emptySession }

function setStatus(draft: Draft, status: string, seq: number): void {
  // An older frame never wins. The same status again moves only where it was last known so: an
  // idle said at or after the splice that queued input means that input is parked (select.ts).
  if (seq < draft.view.statusSeq) return
  if (status === draft.view.status && seq === draft.view.statusSeq) return
  draft.view.status = status
  draft.view.statusSeq = seq
}

function foldEvent(draft: Draft, event: WireEvent): void {
  if (event.seq <= draft.view.lastSeq) return
  draft.view.lastSeq = event.seq
  draft.addEvent(event)
  const data = event.data as never
  switch (event.type) {
    case 'turn/start':
      return startTurn(draft, event, data)
    case 'turn/end':
      return endTurn(draft, event, data)
    case 'step/start':
      return startStep(draft, event, data)
    case 'step/end': {
      const { turn, step, finish } = data as EventData['step/end']
      const target = draft.step(turn, step)
      if (target !== null) Object.assign(target, { endTime: event.time, finish })
      return
    }
    case 'user/message':
      return enterStep(draft, event, data)
    case 'assistant/chunk': {
      const { turn, step, chunk } = data as EventData['assistant/chunk']
      const target = draft.step(turn, step)
      if (target !== null) applyChunk(target, chunk)
      return
    }
    case 'assistant/message': {
      const { turn, step, message, usage, interrupted } = data as EventData['assistant/message']
      const target = draft.step(turn, step)
      if (target === null) return
      applyMessage(target, message.content)
      if (usage !== undefined) target.usage = usage
      target.interrupted = interrupted === true
      return
    }
    case 'tool/call': {
      const { turn, step, callId, name, arguments: args } = data as EventData['tool/call']
      const target = draft.step(turn, step)
      if (target === null) return
      updateCard(target, callId, (card) => ({ ...card, name, args, status: card.status === 'streaming' ? 'running' : card.status }), () => ({ index: -1, callId, name, args, status: 'running', result: null }))
      return
    }
    case 'tool/result': {
      const { turn, step, callId, content, isError } = data as EventData['tool/result']
      const target = draft.step(turn, step)
      if (target === null) return
      const result = resultText(content)
      updateCard(target, callId, (card) => ({ ...card, status: isError === true ? 'error' : 'done', result }), () => ({ index: -1, callId, name: '', args: '', status: 'running', result: null }))
      return
    }
    case 'llm/retry': {
      const { turn, step, attempt, delayMs, error } = data as EventData['llm/retry']
      const target = draft.step(turn, step)
      if (target === null) return
      // The failed attempt's partial output is discarded: the retry streams the step again.
      target.parts = []
      target.retries.push({ seq: event.seq, attempt, delayMs, error: { code: error.code, message: error.message } })
      return
    }
    case 'agent/pre-step/rejected': {
      const { turn, by, metadata } = data as EventData['agent/pre-step/rejected']
      const target = draft.turn(turn)
      if (target === null) return
      const messages = draft.view.inFlight.filter((entry) => entry.turn === turn).map((entry) => entry.message)
      target.rejected = { seq: event.seq, by, metadata, messages }
      if (messages.length > 0) draft.view.inFlight = draft.view.inFlight.filter((entry) => entry.turn !== turn)
      return
    }
    case 'agent/inbox/spliced': {
      const splice = data as EventData['agent/inbox/spliced']
      if (splice.inserted.length > 0) draft.view.queuedSeq = event.seq
      return applySplice(draft, splice)
    }
    case 'compaction/start':
      return startCompaction(draft, event, data)
    case 'compaction/summary':
    case 'compaction/end':
      return updateCompaction(draft, event)
    case 'session/end-seed':
      return endSeed(draft, event)
    case 'subagent/spawned':
      return childSpawned(draft, data)
    case 'subagent/settled':
      return childSettled(draft, data)
    case 'subagent/sent':
      return childSent(draft, data)
  }
}

function startTurn(draft: Draft, event: WireEvent, { turn }: EventData['turn/start']): void {
  const view: TurnView = { kind: 'turn', key: `turn-${turn}`, turn, startSeq: event.seq, startTime: event.time, endTime: null, endSeq: null, reason: null, seed: false, steps: [], rejected: null }
  draft.indexTurn(turn, draft.addItem(view))
  draft.view.openTurn = turn
  setStatus(draft, 'running', event.seq)
}

function endTurn(draft: Draft, event: WireEvent, { turn, reason }: EventData['turn/end']): void {
  const target = draft.turn(turn)
  if (target !== null) {
    target.endTime = event.time
    target.endSeq = event.seq
    target.reason = reason
    for (const step of target.steps) {
      if (step.parts.some((part) => part.kind === 'tool' && (part.card.status === 'streaming' || part.card.status === 'running'))) settleCards(draft.step(turn, step.step)!)
    }
  }
  // Claimed input that never reached a step is not pending any more (recovery re-queues it by a splice).
  if (draft.view.inFlight.some((entry) => entry.turn === turn)) draft.view.inFlight = draft.view.inFlight.filter((entry) => entry.turn !== turn)
  if (draft.view.openTurn === turn) draft.view.openTurn = null
  setStatus(draft, 'idle', event.seq)
}

function startStep(draft: Draft, event: WireEvent, { turn, step }: EventData['step/start']): void {
  const target = draft.turn(turn)
  if (target === null) return
  const view: StepView = draft.adopt({ step, startSeq: event.seq, startTime: event.time, endTime: null, finish: null, inputs: [], parts: [], usage: null, interrupted: false, retries: [], children: [] })
  target.steps.push(view)
}

/** A `user/message` lands in the open step: the hand-off from pending to the conversation. */
function enterStep(draft: Draft, event: WireEvent, message: EventData['user/message']): void {
  const turn = draft.view.openTurn
  const ids = new Set([message.id, ...derivedFrom(message)])
  const claimed = draft.view.inFlight.find((entry) => ids.has(entry.message.id))
  if (draft.view.inFlight.some((entry) => ids.has(entry.message.id))) draft.view.inFlight = draft.view.inFlight.filter((entry) => !ids.has(entry.message.id))
  if (turn === null) return
  const owner = draft.turn(turn)
  const last = owner?.steps[owner.steps.length - 1]
  if (owner === null || last === undefined) return
  const step = draft.step(turn, last.step)!
  const lane = claimed?.lane ?? null
  step.inputs.push({ message, seq: event.seq, lane, steer: lane === 'next-step' || owner.steps.length > 1 })
}

function startCompaction(draft: Draft, event: WireEvent, { reason }: EventData['compaction/start']): void {
  draft.addItem({ kind: 'compaction', key: `compaction-${event.seq}`, startSeq: event.seq, time: event.time, reason: String(reason), summary: null, firstKeptSeq: null, done: false })
}

function updateCompaction(draft: Draft, event: WireEvent): void {
  const { items } = draft.view
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items.get(index)!
    if (item.kind !== 'compaction' || item.done) continue
    const data = event.data as Partial<EventData['compaction/summary']>
    draft.setItem(
      index,
      event.type === 'compaction/end'
        ? { ...item, done: true }
        : { ...item, summary: String(data.summary ?? ''), firstKeptSeq: typeof data.firstKeptSeq === 'number' ? data.firstKeptSeq : null },
    )
    return
  }
}

/** A fork's seed ends: what came before is the parent's history, and its queues are not this session's. */
function endSeed(draft: Draft, event: WireEvent): void {
  draft.view.seedEnd = event.seq
  draft.view.queues = { 'next-turn': [], 'next-step': [] }
  draft.view.inFlight = []
  // Once per fork: every item so far is the parent's.
  draft.view.items = Rows.of(draft.view.items.toArray().map((item) => (item.kind === 'turn' ? { ...item, seed: true } : item)))
}
