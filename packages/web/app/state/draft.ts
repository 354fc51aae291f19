/**
 * Copy-on-write over a {@link SessionView} for one batch of frames: the first write to a turn, a
 * step or a top-level array copies it once, later writes in the same batch reuse the copy. So
 * folding a batch costs what it changes, not the size of the session, the input state is never
 * mutated, and React's memoised rows re-render only when their turn changed.
 */
import type { SessionView, StepView, TurnView } from './view.js'

export class Draft {
  readonly view: SessionView
  readonly #owned = new Set<object>()

  constructor(base: SessionView) {
    this.view = { ...base }
  }

  /** A writable copy of a top-level array or record of the view. */
  own<K extends 'items' | 'events' | 'inFlight' | 'turnIndex' | 'queues' | 'childIndex'>(key: K): SessionView[K] {
    const value = this.view[key]
    if (this.#owned.has(value)) return value
    const copy = (Array.isArray(value) ? [...value] : { ...value }) as SessionView[K]
    this.#owned.add(copy)
    this.view[key] = copy
    return copy
  }

  /** The writable turn `turn`, or null when the log never started it (a fragment; ignored). */
  turn(turn: number): TurnView | null {
    const index = this.view.turnIndex[turn]
    if (index === undefined) return null
    const item = this.view.items[index] as TurnView
    if (this.#owned.has(item)) return item
    const copy: TurnView = { ...item, steps: [...item.steps] }
    this.#owned.add(copy)
    this.own('items')[index] = copy
    return copy
  }

  /** The writable step `step` of turn `turn`, or null when it never started. */
  step(turn: number, step: number): StepView | null {
    const owner = this.turn(turn)
    if (owner === null) return null
    const index = owner.steps.findIndex((candidate) => candidate.step === step)
    if (index < 0) return null
    const item = owner.steps[index]!
    if (this.#owned.has(item)) return item
    const copy: StepView = { ...item, inputs: [...item.inputs], parts: [...item.parts], retries: [...item.retries], children: [...item.children] }
    this.#owned.add(copy)
    owner.steps[index] = copy
    return copy
  }

  /** Marks an object made in this batch as writable. */
  adopt<T extends object>(value: T): T {
    this.#owned.add(value)
    return value
  }
}
