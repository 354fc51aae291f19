// The shared abort notification of a turn's signal (when-aborted.ts).
import { describe, expect, it } from 'vitest'
import { ABORTED, onAbort, ownedAbortController, unlessAborted, whenAborted } from './when-aborted.js'

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

  it('an owned controller fires its callbacks from its own abort(), with the reason on the signal, and adds no listener', async () => {
    const owned = ownedAbortController()
    const add = owned.signal.addEventListener
    let added = 0
    owned.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++
      add.apply(owned.signal, args)
    }) as typeof add
    const seen: unknown[] = []
    // The loop waits on the owned controller itself (its signal has no room for the watch: see TurnAbort).
    onAbort(owned, () => seen.push(owned.signal.reason))
    owned.abort('stop')
    expect(seen).toEqual(['stop'])
    await whenAborted(owned)
    expect(added).toBe(0)
  })

  it('resolves at once for a signal that was aborted before anyone waited', async () => {
    await whenAborted(AbortSignal.abort())
  })

  it('an owned signal first waited on after its abort resolves at once, and a callback registered then is never called', async () => {
    const owned = ownedAbortController()
    owned.abort('early')
    const calls: string[] = []
    onAbort(owned, () => calls.push('late'))
    await whenAborted(owned)
    owned.abort('again')
    expect(calls).toEqual([])
    expect(owned.signal.reason).toBe('early')
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
