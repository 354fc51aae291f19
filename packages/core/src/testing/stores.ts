// Test-only stores (excluded from the build): a memory store whose writers report every append and flush.
import type { SessionEvent } from '../session/events.js'
import { memoryStore } from '../store/memory.js'
import type { Store, StoredSession } from '../store/types.js'

/** A memory store that pushes `append <type>` and `flush` to `log` as its session writers are used. */
export function loggingStore(log: string[]): Store {
  const inner = memoryStore()
  const wrap = (stored: StoredSession | undefined): StoredSession | undefined =>
    stored && {
      ...stored,
      writer: {
        append: (event: SessionEvent) => {
          log.push(`append ${event.type}`)
          stored.writer.append(event)
        },
        flush: () => {
          log.push('flush')
          return stored.writer.flush()
        },
        close: () => stored.writer.close(),
      },
    }
  return { ...inner, create: async (h, seed) => wrap(await inner.create(h, seed))!, open: async (id) => wrap(await inner.open(id)) }
}
