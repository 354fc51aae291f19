// Shared test data: headers, events and the exact bytes a session file must hold.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { BosunError, LOG_FORMAT_VERSION } from '@bosun/core'
import type { SessionEvent, SessionHeader } from '@bosun/core'

export const header = (id: string, extra: Partial<SessionHeader> = {}): SessionHeader => ({
  id, version: LOG_FORMAT_VERSION, createdAt: 1_700_000_000_000, ...extra,
})

/** A frozen event with non-ASCII text, quotes and a newline in its data. */
export const event = (seq: number, text = `event ${seq} ✓ "q" \n 🚢`): SessionEvent =>
  Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: 'test/value', data: Object.freeze({ text }) })

/** What a session file holds: the header line, then `JSON.stringify(event)` per line. */
export const fileText = (head: SessionHeader, events: readonly SessionEvent[]): string =>
  JSON.stringify({ bosun: 'session', ...head }) + '\n' + events.map((e) => JSON.stringify(e) + '\n').join('')

export const sessionFile = (dir: string, id: string): string => join(dir, `${id}.jsonl`)

export const readSession = (dir: string, id: string): Promise<string> => readFile(sessionFile(dir, id), 'utf8')

export const sleep = (ms: number): Promise<'timer'> => new Promise((resolve) => setTimeout(() => resolve('timer'), ms))

/** The BosunError a promise rejects with; throws (failing the test) if it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<BosunError> {
  const outcome = await promise.then(() => 'resolved', (error: unknown) => error)
  if (!BosunError.is(outcome)) throw new Error(`expected a BosunError, got ${String(outcome)}`)
  return outcome
}
