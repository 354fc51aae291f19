// list() and summary(id) while another process writes the session: each answer is read in one
// transaction with the rows it summarises, so a summary row is never paired with another length
// (written by the writer in the savepoint of every batch: see schema.ts, session_summaries).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createUserMessage, summarizeLog } from '@bosun/core'
import type { SessionEvent, SessionSummary } from '@bosun/core'
import { sqliteStore } from './store.js'
import { header, tempDatabase } from './testing/temp.js'

const CHILD = fileURLToPath(new URL('../test/summary-child.mjs', import.meta.url))

let dir: string
let file: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, file, cleanup } = await tempDatabase()))
afterEach(() => cleanup())

/** `count` events from seq `from` that move every list field, chunk runs among them (packed rows). */
function logEvents(from: number, count: number): SessionEvent[] {
  const events: SessionEvent[] = []
  for (let seq = from; seq < from + count; seq++) {
    const text = `message ${seq} ` + 'x'.repeat((seq * 7919) % 300)
    const kinds: [string, object][] = [
      ['turn/start', { turn: seq / 6 + 1 }],
      ['user/message', createUserMessage(text, { id: `u${seq}`, source: { kind: seq % 2 === 0 ? 'user' : 'agent' } })],
      ['agent/inbox/spliced', { target: seq % 4 === 2 ? 'next-step' : 'next-turn', start: 0, inserted: [createUserMessage(text, { id: `q${seq}` })] }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: seq % 3 === 0 ? 1 : 0, inserted: [] }],
      ['assistant/chunk', { chunk: { type: 'text-delta', text } }],
      ['assistant/chunk', { chunk: { type: 'text-delta', text: 'more' } }],
    ]
    const [type, data] = kinds[seq % 6]!
    events.push(Object.freeze({ seq, time: 1_700_000_000_000 + seq * 1000, type, data }) as SessionEvent)
  }
  return events
}

const FIELDS = ['length', 'lastActivity', 'turns', 'firstPrompt', 'pending', 'queued'] as const
const fieldsOf = (entry: SessionSummary) => Object.fromEntries(FIELDS.map((field) => [field, entry[field]]))

describe('sqlite store — list() while another process writes', () => {
  it('every list entry and summary(id) is the summary of a prefix of the log, across the writer\'s reopens', async () => {
    const first = sqliteStore({ file })
    await (await first.create(header('s'))).writer.close()
    await first.close()
    const events = logEvents(0, 600)
    const eventsFile = join(dir, 'events.json')
    await writeFile(eventsFile, JSON.stringify(events))
    const child = spawn(process.execPath, [CHILD, file, 's', eventsFile, '3', '5'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    // 'close', not 'exit': the child's last line may still be in the pipe when 'exit' comes.
    const exited = once(child, 'close')
    const lister = sqliteStore({ file })
    try {
      while (child.exitCode === null && child.signalCode === null) {
        const listed = (await lister.list())[0]!
        expect(listed.lastActivity).toBeDefined()
        expect(fieldsOf(listed)).toEqual(summarizeLog(header('s'), events.slice(0, listed.length)))
        const one = (await lister.summary('s'))!
        expect(fieldsOf(one)).toEqual(summarizeLog(header('s'), events.slice(0, one.length)))
        // Lets the child's exit be seen (the reads above are synchronous).
        await new Promise((resolve) => setImmediate(resolve))
      }
      expect((await exited)[0]).toBe(0)
      expect(output).toBe(`DONE ${events.length}\n`)
      expect(fieldsOf((await lister.list())[0]!)).toEqual(summarizeLog(header('s'), events))
    } finally {
      await lister.close()
    }
  }, 120_000)
})
