// The shared abort notification of a turn's signal (when-aborted.ts).
import { describe, expect, it } from 'vitest'
import { onAbort, ownedAbortController, whenAborted } from './when-aborted.js'

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
    onAbort(owned.signal, () => seen.push(owned.signal.reason))
    owned.abort('stop')
    expect(seen).toEqual(['stop'])
    await whenAborted(owned.signal)
    expect(added).toBe(0)
  })

  it('resolves at once for a signal that was aborted before anyone waited', async () => {
    await whenAborted(AbortSignal.abort())
  })
})
