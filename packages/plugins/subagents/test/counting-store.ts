// A store that counts what it is asked to open and which sessions' writers were closed: recovery
// must not open settled children, and a child it woke must be closed after it answers.
import type { Store, StoredSession } from '@bosun/core'

export function countingStore(inner: Store) {
  const opens: string[] = []
  const closed: string[] = []
  const track = (id: string, stored: StoredSession): StoredSession => {
    const writer = stored.writer
    const close = writer.close.bind(writer)
    // The writer is the store's object: patched in place, so that its other methods keep their `this`.
    writer.close = async () => {
      closed.push(id)
      await close()
    }
    return stored
  }
  const store: Store = {
    name: inner.name,
    create: async (header, seed) => track(header.id, await inner.create(header, seed)),
    open: async (id) => {
      opens.push(id)
      const stored = await inner.open(id)
      return stored && track(id, stored)
    },
    ...(inner.read ? { read: (id: string) => inner.read!(id) } : {}),
    list: () => inner.list(),
    close: () => inner.close(),
  }
  return { store, opens, closed }
}
