import type { SessionEvent, TurnEndReason } from '@bosun/core'

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
  const fold = new ChildFold(resume)
  for (let i = seedLength; i < events.length; i++) fold.add(events[i]!)
  return fold.state
}

/**
 * {@link foldChild}, one event at a time: fed the child's events as they are appended, so that a
 * settlement check costs O(1) instead of a pass over the child's whole history. `state` is a
 * snapshot: later events do not change a state already read.
 */
export class ChildFold {
  readonly #resume: boolean
  readonly #queued = { 'next-turn': 0, 'next-step': 0 }
  readonly #live = new Set<string>()
  readonly #settlements: Settlement[] = []
  #report: string | undefined
  #text: string | undefined
  #settledAtEnd = false

  constructor(resume: boolean) {
    this.#resume = resume
  }

  get state(): ChildState {
    return { settlements: this.#settlements.slice(), settledAtEnd: this.#settledAtEnd, pending: this.#pending() }
  }

  /** The settlements so far, without a copy (for a caller that only reads them). */
  get settlements(): readonly Settlement[] {
    return this.#settlements
  }

  get settledAtEnd(): boolean {
    return this.#settledAtEnd
  }

  #pending(): boolean {
    return this.#queued['next-turn'] + this.#queued['next-step'] > 0
  }

  add(event: SessionEvent): void {
    switch (event.type) {
      case 'agent/inbox/spliced': {
        const data = event.data as { target: 'next-turn' | 'next-step'; removedCount?: number; inserted: readonly unknown[] }
        this.#queued[data.target] += data.inserted.length - (data.removedCount ?? 0)
        if (this.#pending()) this.#settledAtEnd = false
        break
      }
      case 'turn/start':
        this.#report = undefined
        this.#settledAtEnd = false
        break
      case 'tool/call': {
        const data = event.data as { name: string; arguments: string }
        if (data.name === 'report') {
          const content = parseContent(data.arguments)
          if (content !== undefined) this.#report = content
        }
        break
      }
      case 'assistant/message': {
        const blocks = (event.data as { message: { content: readonly { type: string; text?: string }[] } }).message.content
        const said = blocks.filter((block) => block.type === 'text').map((block) => block.text ?? '').join('')
        if (said.trim() !== '') this.#text = said
        break
      }
      case 'subagent/spawned':
      case 'subagent/sent':
        this.#live.add((event.data as { childId: string }).childId)
        break
      case 'subagent/settled':
        this.#live.delete((event.data as { childId: string }).childId)
        break
      case 'turn/end': {
        const { turn, reason } = event.data as { turn: number; reason: TurnEndReason }
        const halted = reason.kind === 'aborted' || (reason.kind === 'interrupted' && !this.#resume)
        if (this.#live.size === 0 && (!this.#pending() || halted)) {
          this.#settlements.push({ epoch: this.#settlements.length + 1, turn, reason, answer: this.#report ?? this.#text ?? '' })
          this.#settledAtEnd = true
        }
        break
      }
    }
  }
}

function parseContent(json: string): string | undefined {
  try {
    const value = JSON.parse(json) as { content?: unknown }
    return typeof value?.content === 'string' ? value.content : undefined
  } catch {
    return undefined
  }
}
