// A memory store that can "crash": from the chosen append on, the agents of that generation write
// nothing more and their store calls never return, as if the process had died. A new generation
// (`store()` after the crash) reopens what was stored, as a restarted process would.
import { memoryStore, type SessionWriter, type Store, type StoredSession } from '@bosun/core'

const never = <T>() => new Promise<T>(() => {})

export function crashableStore() {
  const inner = memoryStore()
  let generation = 0
  let budget = Number.POSITIVE_INFINITY
  let crashes = 0
  const crash = () => {
    generation++
    crashes++
    budget = Number.POSITIVE_INFINITY
  }
  const view = (gen: number): Store => {
    const alive = () => gen === generation
    const wrap = (stored: StoredSession): StoredSession => {
      const writer: SessionWriter = {
        append(event) {
          if (!alive()) return
          if (budget <= 0) return crash()
          budget--
          stored.writer.append(event)
        },
        flush: () => (alive() ? stored.writer.flush() : never()),
        close: () => (alive() ? stored.writer.close() : never()),
      }
      return { ...stored, writer }
    }
    return {
      name: 'memory',
      create: async (header, seed) => (alive() ? wrap(await inner.create(header, seed)) : never()),
      open: async (id) => {
        if (!alive()) return never()
        const stored = await inner.open(id)
        return stored && wrap(stored)
      },
      list: () => inner.list(),
      close: async () => {},
    }
  }
  return {
    /** The store of the current generation (a new one after each crash). */
    store: () => view(generation),
    /** Crash at the `n`-th append from now (0: the next one). */
    crashAfter: (n: number) => void (budget = n),
    /** Crash now (a kill after the run finished, when the chosen append never came). */
    crash,
    get crashed() {
      return crashes > 0
    },
    inner,
  }
}
