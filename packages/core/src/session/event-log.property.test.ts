import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { EventLog } from './event-log.js'
import type { SessionEvent } from './events.js'
import { DECODED_PAGES_KEPT, decodedPageCount, dropDecodedPages, pageEvents, sealPage } from './log-pages.js'

// A paged log (sealed pages + live tail) against a plain array, under random appends, seals and
// reads: the contents must be equal whichever way they are read, and every event frozen.

type Op =
  | { kind: 'append'; text: string; nested: boolean }
  | { kind: 'seal'; back: number; size: number }
  | { kind: 'read'; index: number; start: number; end: number; from: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), text: fc.string({ maxLength: 12 }), nested: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('seal' as const), back: fc.nat(6), size: fc.integer({ min: 1, max: 7 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      index: fc.integer({ min: -3, max: 60 }),
      start: fc.integer({ min: -70, max: 70 }),
      end: fc.integer({ min: -70, max: 70 }),
      from: fc.integer({ min: -60, max: 3 }),
    }),
  },
)

function eventAt(seq: number, text: string, nested: boolean): SessionEvent {
  const data = nested ? { text, parts: [{ type: 'text-delta', n: seq }], flag: seq % 2 === 0 } : { text }
  return Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: seq % 3 === 0 ? 'turn/end' : 'assistant/chunk', data: deepFreeze(data) }) as SessionEvent
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  return Object.freeze(value)
}

function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen)
}

function checkReads(log: EventLog, model: SessionEvent[], read: Extract<Op, { kind: 'read' }>): void {
  const view = log.events()
  expect(view.length).toBe(model.length)
  expect(log.length).toBe(model.length)
  expect(view[read.index]).toEqual(model[read.index])
  expect(log.at(read.index)).toEqual(model[read.index])
  expect(view.at(read.from)).toEqual(model.at(read.from))
  expect(view.slice(read.start, read.end)).toEqual(model.slice(read.start, read.end))
  expect(view.slice(read.start)).toEqual(model.slice(read.start))
  expect(log.last).toEqual(model.at(-1))
  expect([...view]).toEqual(model)
  expect(view.findLast((event) => event.seq % 3 === 1)).toEqual(model.findLast((event) => event.seq % 3 === 1))
  expect(view.map((event) => event.seq)).toEqual(model.map((event) => event.seq))
  expect(JSON.stringify(view)).toBe(JSON.stringify(model))
  expect(Array.isArray(view)).toBe(true)
  for (const event of view) expect(deeplyFrozen(event)).toBe(true)
}

describe('EventLog: sealed pages and a live tail read like one array', () => {
  it('equals a plain array under random appends, seals and reads (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const log = new EventLog([])
        const model: SessionEvent[] = []
        let largest = 0
        for (const step of ops) {
          if (step.kind === 'append') {
            const event = eventAt(model.length, step.text, step.nested)
            log.push(event)
            model.push(event)
          } else if (step.kind === 'seal') {
            const before = log.base
            const through = Math.max(0, model.length - step.back)
            const sealed = log.seal(through, step.size)
            if (sealed > 0) largest = Math.max(largest, step.size)
            expect(sealed).toBe(Math.max(0, through - before))
            expect(log.base).toBe(Math.max(before, through))
            // No page is larger than the largest page size asked for; pages are contiguous from 0.
            let next = 0
            for (const page of log.pages) {
              expect(page.first).toBe(next)
              expect(page.count).toBeGreaterThan(0)
              expect(page.count).toBeLessThanOrEqual(largest)
              next += page.count
            }
            expect(next).toBe(log.base)
          } else {
            checkReads(log, model, step)
          }
        }
        checkReads(log, model, { kind: 'read', index: 0, start: 0, end: model.length, from: -1 })
        // A fork shares the pages, copies the tail, and reads the same.
        const fork = log.fork()
        expect(fork.pages).toBe(log.pages)
        expect(fork.tail).not.toBe(log.tail)
        expect([...fork.events()]).toEqual(model)
      }),
      { numRuns: 300 },
    )
  })

  it('is the tail array itself until a page is sealed, then a read-only view whose writes throw', () => {
    const tail = [eventAt(0, 'a', false), eventAt(1, 'b', true), eventAt(2, 'c', false)]
    const log = new EventLog(tail)
    expect(log.events()).toBe(tail)
    expect(log.seal(2, 256)).toBe(2)
    const view = log.events() as SessionEvent[]
    expect(view).not.toBe(tail)
    expect(log.events()).toBe(view) // one view per log
    expect(view[0]).toEqual(tail[0])
    expect(view[0]).not.toBe(tail[0]) // a sealed event is read back as a copy
    expect(view[2]).toBe(tail[2]) // the tail's are the objects appended
    for (const write of [
      () => view.push(eventAt(3, 'd', false)),
      () => ((view as unknown as Record<number, unknown>)[0] = tail[0]),
      () => view.splice(0, 1),
      () => Object.defineProperty(view, 'x', { value: 1 }),
      () => delete (view as unknown as Record<number, unknown>)[0],
      () => Object.freeze(view),
      () => Object.setPrototypeOf(view, null),
    ]) {
      expect(BosunError.is(thrownBy(write), 'READ_ONLY')).toBe(true)
    }
    expect(view.length).toBe(3)
    expect(() => structuredClone(view)).toThrow()
    expect(structuredClone([...view])).toEqual(tail)
  })

  it('merges a short last page with the next events instead of adding a page per seal', () => {
    const log = new EventLog([])
    for (let i = 0; i < 10; i++) log.push(eventAt(i, `e${i}`, false))
    log.seal(3, 4)
    log.seal(5, 4) // 3 + 2: one page of 4, one of 1
    expect(log.pages.map((page) => [page.first, page.count])).toEqual([[0, 4], [4, 1]])
    log.seal(10, 4)
    expect(log.pages.map((page) => [page.first, page.count])).toEqual([[0, 4], [4, 4], [8, 2]])
    expect(log.tail).toEqual([])
  })
})

describe('a sealed page', () => {
  it('holds exactly its own bytes: not a slice of zlib\'s 16 KiB output buffer nor of a shared pool slab', () => {
    const page = sealPage(Array.from({ length: 20 }, (_, i) => eventAt(i, 'x'.repeat(20), true)))
    expect(page.bytes.byteLength).toBeLessThan(1024)
    expect(page.bytes.buffer.byteLength).toBe(page.bytes.byteLength)
  })
})

describe('the decode cache', () => {
  it('keeps at most a few decoded pages, however many are read', () => {
    dropDecodedPages()
    const pages = Array.from({ length: 20 }, (_, p) => sealPage(Array.from({ length: 5 }, (_, i) => eventAt(p * 5 + i, `p${p}`, true))))
    for (const page of pages) {
      const events = pageEvents(page)
      expect(events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4].map((i) => page.first + i))
      expect(decodedPageCount()).toBeLessThanOrEqual(DECODED_PAGES_KEPT)
    }
    expect(decodedPageCount()).toBe(DECODED_PAGES_KEPT)
    // The most recently read page is served from the cache (the same objects), an evicted one is decoded again.
    expect(pageEvents(pages[19]!)[0]).toBe(pageEvents(pages[19]!)[0])
    const first = pageEvents(pages[0]!)[0]
    for (const page of pages.slice(1)) pageEvents(page)
    expect(pageEvents(pages[0]!)[0]).not.toBe(first)
    expect(pageEvents(pages[0]!)[0]).toEqual(first)
  })
})

function thrownBy(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}
