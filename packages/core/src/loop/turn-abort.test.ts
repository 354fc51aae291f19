// TurnAbort (when-aborted.ts): the loop's view of a turn's abort, which must agree with the
// turn's `signal` at every moment the loop or a plugin can observe either.
import { describe, expect, it } from 'vitest'
import { ABORTED, onAbort, ownedAbortController, unlessAborted } from '../when-aborted.js'

describe('TurnAbort', () => {
  it('agrees with its signal before, inside and after the abort', () => {
    const owned = ownedAbortController()
    expect([owned.aborted, owned.signal.aborted]).toEqual([false, false])
    const seen: [boolean, boolean][] = []
    // A listener Node calls inside the controller's abort(), and a watch callback fired after it.
    owned.signal.addEventListener('abort', () => seen.push([owned.aborted, owned.signal.aborted]))
    onAbort(owned, () => seen.push([owned.aborted, owned.signal.aborted]))
    owned.abort('stop')
    expect(seen).toEqual([[true, true], [true, true]])
    expect(owned.signal.reason).toBe('stop')
    owned.abort('again')
    expect(owned.signal.reason).toBe('stop')
  })

  it('adds nothing to its signal: the signal keeps only what Node put there', () => {
    const owned = ownedAbortController()
    const plain = new AbortController().signal
    onAbort(owned, () => {})
    void unlessAborted(new Promise(() => {}), owned)
    owned.abort()
    expect(Reflect.ownKeys(owned.signal).map(String)).toEqual(Reflect.ownKeys(plain).map(String))
  })

  it('keeps each turn its own: aborting one leaves the next alone, and its waiters', async () => {
    const first = ownedAbortController()
    const second = ownedAbortController()
    const pending = unlessAborted(Promise.resolve('done'), second)
    first.abort()
    expect([first.aborted, second.aborted, second.signal.aborted]).toEqual([true, false, false])
    await expect(pending).resolves.toBe('done')
    await expect(unlessAborted(new Promise(() => {}), first)).resolves.toBe(ABORTED)
  })
})
