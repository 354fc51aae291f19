// A memory store that can "crash": from the chosen write on (an append, or the creation of a
// session), the agents of that generation write nothing more and their store calls never return,
// as if the process had died. A new generation (`store()` after the crash) reopens what was
// stored, as a restarted process would.
import { memoryStore, type SessionEvent, type SessionWriter, type Store, type StoredSession } from '@bosun/core'

/** One write the store is asked to do: the one a crash can fall on. */
export type Write = { kind: 'append'; sessionId: string; event: SessionEvent } | { kind: 'create'; sessionId: string }

const never = <T>() => new Promise<T>(() => {})

export function crashableStore() {
  const inner = memoryStore()
  let generation = 0
  let budget = Number.POSITIVE_INFINITY
  let crashes = 0
  let when: ((write: Write) => boolean) | undefined
  const crash = () => {
    generation++
    crashes++
    budget = Number.POSITIVE_INFINITY
    when = undefined
  }
  /** Whether this write is lost to a crash (which then happens): the budget is spent, or the chosen write came. */
  const lost = (write: Write) => {
    if (budget > 0 && !when?.(write)) {
      budget--
      return false
    }
    crash()
    return true
  }
  const view = (gen: number): Store => {
    const alive = () => gen === generation
    const wrap = (stored: StoredSession): StoredSession => {
      const writer: SessionWriter = {
        append(event) {
          if (!alive() || lost({ kind: 'append', sessionId: stored.header.id, event })) return
          stored.writer.append(event)
        },
        flush: () => (alive() ? stored.writer.flush() : never()),
        close: () => (alive() ? stored.writer.close() : never()),
      }
      return { ...stored, writer }
    }
    return {
      name: 'memory',
      create: async (header, seed) => (alive() && !lost({ kind: 'create', sessionId: header.id }) ? wrap(await inner.create(header, seed)) : never()),
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
    /** Crash at the `n`-th write from now (0: the next one). */
    crashAfter: (n: number) => void (budget = n),
    /** Crash at the first write `predicate` picks (it is lost). */
    crashWhen: (predicate: (write: Write) => boolean) => void (when = predicate),
    /** Crash now (a kill after the run finished, when the chosen append never came). */
    crash,
    get crashed() {
      return crashes > 0
    },
    inner,
  }
}
