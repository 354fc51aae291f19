// forEachUntilAborted sees the abort through the signal's watch, not by reading the signal per
// item: an abort at any point — while the source is opened, inside an item, while a read is
// pending — stops the items and closes the source.
import { describe, expect, it } from 'vitest'
import { ownedAbortController } from '../when-aborted.js'
import { forEachUntilAborted } from './abortable.js'

/** A source of `items` that records what was asked of it; `onOpen` runs inside `[Symbol.asyncIterator]()`. */
function source(items: number[], onOpen?: () => void) {
  const calls: string[] = []
  /** Every read asked of the source, to wait for (its item, if any, is delivered by a handler registered before). */
  const reads: Promise<IteratorResult<number>>[] = []
  let i = 0
  return {
    calls,
    reads,
    [Symbol.asyncIterator]() {
      onOpen?.()
      return {
        next: (): Promise<IteratorResult<number>> => {
          calls.push('next')
          const read = Promise.resolve<IteratorResult<number>>(i < items.length ? { done: false, value: items[i++]! } : { done: true, value: undefined })
          reads.push(read)
          return read
        },
        return: async (): Promise<IteratorResult<number>> => {
          calls.push('return')
          return { done: true, value: undefined }
        },
      }
    },
  }
}

describe('forEachUntilAborted', () => {
  it('delivers every item and does not close a source that ran out', async () => {
    const { signal } = ownedAbortController()
    const seen: number[] = []
    const items = source([1, 2, 3])
    await forEachUntilAborted(items, signal, (item) => seen.push(item))
    expect(seen).toEqual([1, 2, 3])
    expect(items.calls).toEqual(['next', 'next', 'next', 'next'])
  })

  it('delivers nothing when the abort comes while the source is being opened, and closes it without reading', async () => {
    const controller = ownedAbortController()
    const seen: number[] = []
    const items = source([1, 2], () => controller.abort('while opening'))
    await forEachUntilAborted(items, controller.signal, (item) => seen.push(item))
    expect(seen).toEqual([])
    expect(items.calls).toEqual(['return'])
  })

  it('drops the items after an abort made inside an item, and closes the source', async () => {
    const controller = ownedAbortController()
    const seen: number[] = []
    const items = source([1, 2, 3, 4])
    await forEachUntilAborted(items, controller.signal, (item) => {
      seen.push(item)
      if (item === 2) controller.abort('enough')
    })
    // The read that was already asked for has settled: its item must not have been delivered.
    await Promise.all(items.reads)
    expect(seen).toEqual([1, 2])
    expect(items.calls).toContain('return')
  })

  it('resolves at the abort while a read is pending, without waiting for the source', async () => {
    const controller = ownedAbortController()
    let asked = 0
    const stuck = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          asked++
          return new Promise<IteratorResult<number>>(() => {})
        },
      }),
    }
    const done = forEachUntilAborted(stuck, controller.signal, () => {
      throw new Error('no item expected')
    })
    while (asked === 0) await new Promise((resolve) => setImmediate(resolve))
    controller.abort('stop')
    await done
    expect(asked).toBe(1)
  })
})
