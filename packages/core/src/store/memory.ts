import { BosunError, ErrorCodes } from '../errors.js'
import type { SessionEvent, SessionHeader } from '../session/events.js'
import { assertSessionId } from './session-id.js'
import type { SessionSummary, SessionWriter, Store, StoredSession } from './types.js'

interface Entry {
  header: SessionHeader
  events: SessionEvent[]
}

/** A memory writer's flush and close: nothing to wait for. Shared, not a closure per writer. */
const resolved = (): Promise<void> => Promise.resolve()

/**
 * The built-in store: sessions live in this process's memory, shared by every agent that uses the
 * same store object (so an agent can resume a session another one wrote). Nothing survives a
 * restart. Appends and flushes are immediate.
 *
 * @example
 * const store = memoryStore()
 * const agent = await createAgent({ model, store })
 */
export function memoryStore(): Store {
  const sessions = new Map<string, Entry>()
  let closed = false

  const writerFor = (entry: Entry): SessionWriter => ({
    append(event) {
      ensureOpen()
      if (event.seq !== entry.events.length) {
        throw new BosunError(
          ErrorCodes.STALE_WRITER,
          `Session "${entry.header.id}" has ${entry.events.length} stored events but an append brought seq ${event.seq}: another writer is using this session. Reopen it to continue.`,
        )
      }
      entry.events.push(event)
    },
    flush: resolved,
    close: resolved,
  })

  const ensureOpen = () => {
    if (closed) throw new BosunError(ErrorCodes.STORE, 'The memory store is closed.')
  }

  return {
    name: 'memory',
    async create(header, seed = []) {
      ensureOpen()
      assertSessionId(header.id)
      if (sessions.has(header.id)) {
        throw new BosunError(ErrorCodes.SESSION_EXISTS, `Session "${header.id}" already exists in the memory store.`)
      }
      const entry: Entry = { header, events: [...seed] }
      sessions.set(header.id, entry)
      return { header, events: [...seed], writer: writerFor(entry) } satisfies StoredSession
    },
    async open(id) {
      ensureOpen()
      assertSessionId(id)
      const entry = sessions.get(id)
      if (!entry) return undefined
      return { header: entry.header, events: [...entry.events], writer: writerFor(entry) }
    },
    async has(id) {
      ensureOpen()
      assertSessionId(id)
      return sessions.has(id)
    },
    async header(id) {
      ensureOpen()
      assertSessionId(id)
      return sessions.get(id)?.header
    },
    async list() {
      ensureOpen()
      return [...sessions.values()].map(
        ({ header, events }): SessionSummary => ({
          id: header.id,
          createdAt: header.createdAt,
          ...(header.parent === undefined ? {} : { parent: header.parent }),
          length: events.length,
        }),
      )
    },
    async close() {
      closed = true
    },
  }
}
