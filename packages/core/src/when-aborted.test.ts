// The shared abort notification of a signal, and a turn's lazily made controller (when-aborted.ts).
import { describe, expect, it } from 'vitest'
import { ABORTED, LazyAbortController, onAbort, unlessAborted, whenAborted } from './when-aborted.js'

describe('abort notification', () => {
  it('calls each registered callback once, synchronously within abort(), and resolves the shared promise', async () => {
    const controller = new AbortController()
    const calls: string[] = []
    onAbort(controller.signal, () => calls.push('a'))
    const stop = onAbort(controller.signal, () => calls.push('b'))
    stop()
    expect(whenAborted(controller.signal)).toBe(whenAborted(controller.signal))
    controller.abort()
    expect(calls).toEqual(['a'])
    await whenAborted(controller.signal)
    controller.abort()
    expect(calls).toEqual(['a'])
  })

  it('adds one abort listener per signal however many waiters come and go (no pile-up, no leak warning)', () => {
    const controller = new AbortController()
    let added = 0
    const add = controller.signal.addEventListener.bind(controller.signal)
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++
      add(...args)
    }) as typeof add
    for (let i = 0; i < 100; i++) onAbort(controller.signal, () => {})()
    void whenAborted(controller.signal)
    expect(added).toBe(1)
  })

  it('resolves at once for a signal that was aborted before anyone waited', async () => {
    await whenAborted(AbortSignal.abort())
  })
})

describe('unlessAborted', () => {
  it('resolves to the work’s value, or passes its failure on, when the signal does not abort', async () => {
    const controller = new AbortController()
    await expect(unlessAborted(Promise.resolve(7), controller.signal)).resolves.toBe(7)
    await expect(unlessAborted(Promise.reject(new Error('failed')), controller.signal)).rejects.toThrow('failed')
  })

  it('resolves to ABORTED as soon as the signal aborts, without waiting for work that never settles', async () => {
    const controller = new AbortController()
    const pending = unlessAborted(new Promise<number>(() => {}), controller.signal)
    controller.abort()
    await expect(pending).resolves.toBe(ABORTED)
  })

  it('drops a late result and swallows a late failure (no unhandled rejection)', async () => {
    const controller = new AbortController()
    let fail!: (error: Error) => void
    const pending = unlessAborted(new Promise<number>((_resolve, reject) => (fail = reject)), controller.signal)
    controller.abort()
    fail(new Error('too late'))
    await expect(pending).resolves.toBe(ABORTED)
    const already = unlessAborted(Promise.reject(new Error('also late')), controller.signal)
    await expect(already).resolves.toBe(ABORTED)
  })
})

describe('unlessAborted with a grace period', () => {
  it('gives running work graceMs after the abort to settle with its own value, then gives up', async () => {
    const controller = new AbortController()
    controller.abort()
    const quick = unlessAborted(new Promise<string>((resolve) => setTimeout(() => resolve('in time'), 5)), controller.signal, 200)
    await expect(quick).resolves.toBe('in time')
    const slow = unlessAborted(new Promise<string>(() => {}), controller.signal, 20)
    await expect(slow).resolves.toBe(ABORTED)
  })
})

describe('LazyAbortController (a turn\'s abort)', () => {
  it('makes its signal on the first read and returns the same one after; aborting reaches it with the reason', () => {
    const lazy = new LazyAbortController()
    const signal = lazy.signal
    expect(lazy.signal).toBe(signal)
    expect(signal.aborted).toBe(false)
    lazy.abort('stop')
    expect([lazy.aborted, lazy.reason, signal.aborted, signal.reason]).toEqual([true, 'stop', true, 'stop'])
  })

  it('aborted before anyone read the signal: the signal read afterwards is already aborted, with that reason', () => {
    const lazy = new LazyAbortController()
    lazy.abort('early')
    lazy.abort('second') // only the first abort counts, as with AbortController
    expect([lazy.signal.aborted, lazy.signal.reason, lazy.reason]).toEqual([true, 'early', 'early'])
  })

  it('without a reason, its reason is an AbortError like AbortController\'s, the same object on the signal', () => {
    const lazy = new LazyAbortController()
    lazy.abort()
    expect(lazy.reason).toBeInstanceOf(DOMException)
    expect((lazy.reason as DOMException).name).toBe('AbortError')
    expect(lazy.signal.reason).toBe(lazy.reason)
  })

  it('runs the signal\'s abort listeners first, then the callbacks registered on it, once; none after the abort', () => {
    const lazy = new LazyAbortController()
    const calls: string[] = []
    lazy.signal.addEventListener('abort', () => calls.push('listener'))
    onAbort(lazy, () => calls.push('callback'))
    const stop = onAbort(lazy, () => calls.push('removed'))
    stop()
    lazy.abort('x')
    lazy.abort('y')
    onAbort(lazy, () => calls.push('too late'))
    expect(calls).toEqual(['listener', 'callback'])
  })

  it('is watched without making its signal: unlessAborted resolves ABORTED at its abort', async () => {
    const lazy = new LazyAbortController()
    const pending = unlessAborted(new Promise<number>(() => {}), lazy)
    lazy.abort('stop')
    await expect(pending).resolves.toBe(ABORTED)
    await expect(unlessAborted(Promise.resolve(1), lazy)).resolves.toBe(ABORTED)
  })

  it('two controllers are independent: aborting one leaves the other\'s signal, read before or after, unaborted', () => {
    const first = new LazyAbortController()
    const kept = first.signal
    const second = new LazyAbortController()
    second.abort('second only')
    expect([kept.aborted, first.signal.aborted, second.signal.aborted]).toEqual([false, false, true])
  })
})
