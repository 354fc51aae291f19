/**
 * Copy-on-write over a {@link SessionView} for one batch of frames: the first write to a turn, a
 * step, a trie node of a long list ({@link Rows}) or a small top-level array copies it once, later
 * writes in the same batch reuse the copy. So folding a batch costs what it changes, not the size
 * of the session (a test counts the slots copied: {@link foldWork}), the input state is never
 * mutated, and React's memoised rows re-render only when their turn changed.
 */
import { foldWork } from './fold-work.js'
import type { SessionView, StepView, TimelineItem, TurnView } from './view.js'
import type { WireEvent } from './wire.js'

export { foldWork }

function counted<T extends object>(copy: T): T {
  foldWork.copiedSlots += Array.isArray(copy) ? copy.length : Object.keys(copy).length
  return copy
}

/** How far past the last turn number a `turn/start` may jump and still be indexed. */
const MAX_TURN_GAP = 4096

export class Draft {
  readonly view: SessionView
  readonly #owned = new Set<object>()

  constructor(base: SessionView) {
    this.view = counted({ ...base })
  }

  /** A writable copy of a small top-level array or record of the view (bounded by the queues or the children). */
  own<K extends 'inFlight' | 'queues' | 'childIndex'>(key: K): SessionView[K] {
    const value = this.view[key]
    if (this.#owned.has(value)) return value
    const copy = counted((Array.isArray(value) ? [...value] : { ...value }) as SessionView[K])
    this.#owned.add(copy)
    this.view[key] = copy
    return copy
  }

  addEvent(event: WireEvent): void {
    this.view.events = this.view.events.push(event, this.#owned)
  }

  /** Appends a timeline item made in this batch (writable for the rest of it); answers its index. */
  addItem(item: TimelineItem): number {
    this.#owned.add(item)
    this.view.items = this.view.items.push(item, this.#owned)
    return this.view.items.length - 1
  }

  setItem(index: number, item: TimelineItem): void {
    this.view.items = this.view.items.set(index, item, this.#owned)
  }

  /**
   * Turn `turn` is item `index`. Turn numbers are small and dense in a log (each turn the next):
   * one that is not a list index, or far past the last (the list would be filled up to it), is a
   * malformed event's, and its turn is not indexed — its events are ignored, like a fragment's.
   */
  indexTurn(turn: number, index: number): void {
    if (!Number.isSafeInteger(turn) || turn < 0 || turn > this.view.turnIndex.length + MAX_TURN_GAP) return
    this.view.turnIndex = this.view.turnIndex.set(turn, index, this.#owned)
  }

  /** The writable turn `turn`, or null when the log never started it (a fragment; ignored). */
  turn(turn: number): TurnView | null {
    const index = this.view.turnIndex.get(turn)
    if (index === undefined) return null
    const item = this.view.items.get(index) as TurnView
    if (this.#owned.has(item)) return item
    const copy: TurnView = counted({ ...item, steps: counted([...item.steps]) })
    this.#owned.add(copy)
    this.setItem(index, copy)
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
    const copy: StepView = counted({ ...item, inputs: counted([...item.inputs]), parts: counted([...item.parts]), retries: counted([...item.retries]), children: counted([...item.children]) })
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
