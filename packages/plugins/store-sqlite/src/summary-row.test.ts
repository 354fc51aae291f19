// The list summary row is written by the batches that leave no turn open (and when it would lag the
// log by SUMMARY_LAG_MAX events), not by every batch: each write is a WAL page per commit. A reader
// whose row is behind the log folds the rows after it on from the fold state the row keeps, so
// list() and summary(id) stay exactly what a full read gives (summary-row.ts).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createUserMessage, summarizeLog } from '@bosun/core'
import type { SessionEvent, SessionSummary } from '@bosun/core'
import { SUMMARY_LAG_MAX } from './summary-row.js'
import { tempStores } from './testing/stores.js'
import { header } from './testing/temp.js'

const { make, raw } = tempStores()

const FIELDS = ['length', 'lastActivity', 'turns', 'firstPrompt', 'pending', 'queued'] as const
const fieldsOf = (entry: SessionSummary | undefined) => Object.fromEntries(FIELDS.map((field) => [field, entry?.[field]]))
/** The length the session's summary row was last written at. */
const rowLength = (id: string) => raw((db) => db.prepare('SELECT length FROM session_summaries WHERE id = ?').pluck().get(id)) as number | undefined

type Draft = [type: string, data: unknown]
const at = (seq: number, [type, data]: Draft): SessionEvent => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type, data }) as SessionEvent
const chunk: Draft = ['assistant/chunk', { chunk: { type: 'text-delta', text: 'hi' } }]
const splice = (target: 'next-turn' | 'next-step', text: string, kind = 'user'): Draft =>
  ['agent/inbox/spliced', { target, start: 0, inserted: [createUserMessage(text, { id: `m-${text}`, source: { kind } })] }]
const claim = (target: 'next-turn' | 'next-step'): Draft => ['agent/inbox/spliced', { target, start: 0, removedCount: 1, inserted: [] }]
const message = (text: string, kind = 'user'): Draft => ['user/message', createUserMessage(text, { id: `u-${text}`, source: { kind } })]

/** One turn of the benchmark conversation, as the loop flushes it: four batches. */
const turn = (n: number, text: string): Draft[][] => [
  [splice('next-turn', text), ['turn/start', { turn: n }], claim('next-turn'), ['step/start', { step: 1 }], message(text), ['request/header', {}]],
  [chunk, chunk, ['assistant/message', {}], ['tool/call', {}]],
  [['tool/result', {}], ['step/end', { finish: 'tool-calls' }], ['step/start', { step: 2 }], ['request/header', {}]],
  [chunk, chunk, chunk, ['assistant/message', {}], ['step/end', { finish: 'stop' }], ['turn/end', { kind: 'completed' }]],
]

describe('the summary row', () => {
  it('is written by the batch that ends a turn, not by the batches inside it; the list is exact after every batch', async () => {
    const store = make()
    const reader = make()
    const s = await store.create(header('a'))
    const log: SessionEvent[] = []
    const written: Array<number | undefined> = []
    for (const [n, text] of [[1, 'first'], [2, 'second']] as const) {
      for (const batch of turn(n, text)) {
        for (const draft of batch) {
          const event = at(log.length, draft)
          log.push(event)
          s.writer.append(event)
        }
        await s.writer.flush()
        written.push(rowLength('a'))
        // Another store (another process) lists the session: exactly what a full read gives.
        const expected = summarizeLog(s.header, log)
        expect(fieldsOf((await reader.list())[0])).toEqual(expected)
        expect(fieldsOf(await reader.summary('a'))).toEqual(expected)
      }
    }
    // A writer's first batch writes the row (it may be an older build's); then only the turns' last batches.
    expect(written).toEqual([6, 6, 6, 20, 20, 20, 20, 40])
    await s.writer.close()
  })

  it('folds on a first prompt that changes inside a turn: a queued text, then the user\'s', async () => {
    const store = make()
    const s = await store.create(header('q'))
    const log: SessionEvent[] = []
    const write = async (drafts: Draft[]) => {
      for (const draft of drafts) {
        const event = at(log.length, draft)
        log.push(event)
        s.writer.append(event)
      }
      await s.writer.flush()
    }
    await write([splice('next-turn', 'from a schedule', 'system')])
    await write([['turn/start', { turn: 1 }], claim('next-turn')])
    expect((await make().list())[0]?.firstPrompt).toBe('from a schedule')
    await write([message('what the user said')])
    expect(rowLength('q')).toBe(1)
    expect(fieldsOf((await make().list())[0])).toEqual(summarizeLog(s.header, log))
    expect((await make().list())[0]?.firstPrompt).toBe('what the user said')
    await s.writer.close()
  })

  it(`is written when it would lag the log by ${SUMMARY_LAG_MAX} events, however long the turn`, async () => {
    const store = make()
    const s = await store.create(header('long'))
    const log: SessionEvent[] = []
    const append = (draft: Draft) => {
      const event = at(log.length, draft)
      log.push(event)
      s.writer.append(event)
    }
    append(['turn/start', { turn: 1 }])
    await s.writer.flush()
    const lags: number[] = []
    // Batches of 10 events, a turn that never ends: the row is rewritten once it is 1,024 behind.
    for (let batch = 0; batch < 250; batch++) {
      for (let i = 0; i < 10; i++) append(['tool/result', { i }])
      await s.writer.flush()
      lags.push(log.length - rowLength('long')!)
    }
    expect(Math.max(...lags)).toBeLessThan(SUMMARY_LAG_MAX)
    expect(Math.max(...lags)).toBeGreaterThan(SUMMARY_LAG_MAX - 11)
    expect(lags.filter((lag) => lag === 0).length).toBe(2)
    expect(fieldsOf((await make().list())[0])).toEqual(summarizeLog(s.header, log))
    await s.writer.close()
  })

  it('property: list() and summary(id) equal a full read after every batch, with turns left open and a reopen between', async () => {
    const drafts = fc.oneof(
      fc.constant<Draft>(chunk),
      fc.integer({ min: 1, max: 9 }).map((n): Draft => ['turn/start', { turn: n }]),
      fc.constant<Draft>(['turn/end', { kind: 'completed' }]),
      fc.tuple(fc.constantFrom('next-turn', 'next-step') as fc.Arbitrary<'next-turn' | 'next-step'>, fc.string({ maxLength: 4 }), fc.constantFrom('user', 'system'))
        .map(([target, text, kind]) => splice(target, text, kind)),
      fc.constantFrom('next-turn', 'next-step').map((target) => claim(target as 'next-turn' | 'next-step')),
      fc.tuple(fc.string({ maxLength: 4 }), fc.constantFrom('user', 'system')).map(([text, kind]) => message(text, kind)),
    )
    const batches = fc.array(fc.record({ events: fc.array(drafts, { minLength: 1, maxLength: 6 }), reopen: fc.boolean() }), { minLength: 1, maxLength: 12 })
    let run = 0
    await fc.assert(
      fc.asyncProperty(batches, async (plan) => {
        const id = `p${run++}`
        const reader = make()
        let session = await make().create(header(id))
        const log: SessionEvent[] = []
        for (const { events, reopen } of plan) {
          if (reopen) {
            await session.writer.close()
            session = (await make().open(id))!
          }
          for (const draft of events) {
            const event = at(log.length, draft)
            log.push(event)
            session.writer.append(event)
          }
          await session.writer.flush()
          const expected = summarizeLog(session.header, log)
          expect(fieldsOf((await reader.list()).find((entry) => entry.id === id))).toEqual(expected)
          expect(fieldsOf(await reader.summary(id))).toEqual(expected)
        }
        await session.writer.close()
      }),
      { numRuns: 40 },
    )
  })
})
