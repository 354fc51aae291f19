/**
 * A long session written straight into the JSONL store the server will read: `turns` completed
 * turns of the shape a real one has (big-session-events.mjs).
 */
import { join } from 'node:path'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { bigSessionEvents } from './big-session-events.mjs'

export async function writeBigSession(dir: string, id: string, turns: number): Promise<number> {
  const events = bigSessionEvents(turns)
  const store = jsonlStore({ dir: join(dir, '.bosun/sessions') })
  const created = await store.create({ id, version: 1, createdAt: Date.now() }, events)
  await created.writer.close()
  await store.close()
  return events.length - 1
}
