// Realistic session events for the store benchmarks, shaped exactly like the events the agent loop
// writes (checked against a real run of `createAgent` with the scripted adapter, chunkSize 6):
// an inbox splice, turn/start, the claim splice, step/start, user/message, request/header, a
// stream of small `assistant/chunk` deltas, assistant/message, and for tool turns tool/call and a
// tool/result of a few hundred bytes, a second step, then turn/end. Deterministic (seeded PRNG),
// so every run writes the same bytes.
import type { SessionEvent, SessionHeader } from '@bosun/core'

/** `type` and `data` of one event; `seq` and `time` are assigned when it is appended. */
export interface EventBody {
  type: string
  data: Record<string, unknown>
}

const WORDS = (
  'the a of to and in is it that for on with as this file function returns store session event agent tool ' +
  'value read write error config test index export import module type string number object array call result ' +
  'message user model step turn flush batch durable lines parse open close let me check look here found'
).split(' ')

/** mulberry32: a small seeded PRNG, so generated sessions are byte-identical from run to run. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function sentence(rand: () => number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!)
  const text = out.join(' ')
  return text[0]!.toUpperCase() + text.slice(1) + '.'
}

/**
 * Cuts `text` into deltas of 3 to 12 characters, as a streaming provider sends them; or into
 * exactly `count` deltas when given.
 */
function deltas(rand: () => number, text: string, count?: number): string[] {
  const out: string[] = []
  if (count !== undefined) {
    const size = Math.ceil(text.length / count)
    for (let i = 0; i < count; i++) out.push(text.slice(i * size, (i + 1) * size) || ' ')
    return out
  }
  for (let i = 0; i < text.length; ) {
    const n = 3 + Math.floor(rand() * 10)
    out.push(text.slice(i, i + n))
    i += n
  }
  return out
}

/** One model call: chunks (text deltas, optional tool-call deltas, usage, finish) and the message. */
function modelCall(
  rand: () => number, turn: number, step: number, text: string, call?: { id: string; name: string; args: string }, chunkCount?: number,
): EventBody[] {
  const events: EventBody[] = []
  const chunk = (c: Record<string, unknown>) => events.push({ type: 'assistant/chunk', data: { turn, step, chunk: c } })
  for (const d of deltas(rand, text, chunkCount)) chunk({ type: 'text-delta', text: d })
  if (call) {
    chunk({ type: 'tool-call-delta', index: 0, id: call.id, name: call.name })
    for (let i = 0; i < call.args.length; i += 6) chunk({ type: 'tool-call-delta', index: 0, argumentsDelta: call.args.slice(i, i + 6) })
  }
  const usage = { inputTokens: 800 + Math.floor(rand() * 4000), outputTokens: 10 + Math.floor(rand() * 300) }
  chunk({ type: 'usage', usage })
  chunk({ type: 'finish', reason: call ? 'tool-calls' : 'stop' })
  const content: Record<string, unknown>[] = [{ type: 'text', text: chunkCount === undefined ? text : events.filter((e) => (e.data.chunk as { type: string }).type === 'text-delta').map((e) => (e.data.chunk as { text: string }).text).join('') }]
  if (call) content.push({ type: 'tool-call', id: call.id, name: call.name, arguments: call.args })
  events.push({ type: 'assistant/message', data: { turn, step, message: { role: 'assistant', content }, usage } })
  return events
}

/**
 * The events of one complete turn. Two turns in five are plain (one step); the others call a
 * tool (`read_file`, a result of 200–600 bytes) and answer in a second step. `chunks` makes it a
 * plain turn whose answer streams in exactly that many text deltas: it has `chunks + 11` events
 * (to size the last turn of a generated log exactly).
 */
export function turnEvents(rand: () => number, turn: number, messageCount: number, chunks?: number): EventBody[] {
  const id = `msg-${turn.toString(36).padStart(6, '0')}-${Math.floor(rand() * 2 ** 31).toString(16)}`
  const message = { id, role: 'user', content: [{ type: 'text', text: sentence(rand, 6 + Math.floor(rand() * 20)) }], source: { kind: 'user' } }
  const tools = ['read_file', 'write_file', 'search']
  const header = (step: number, count: number) => ({ type: 'request/header', data: { turn, step, adapter: 'anthropic', model: 'claude-sonnet-4', messageCount: count, tools } })
  const events: EventBody[] = [
    { type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, inserted: [message] } },
    { type: 'turn/start', data: { turn } },
    { type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] } },
    { type: 'step/start', data: { turn, step: 1 } },
    { type: 'user/message', data: message },
    header(1, messageCount + 1),
  ]
  const answerWords = 6 + Math.floor(rand() * 40)
  if (chunks !== undefined || rand() < 0.4) {
    const text = sentence(rand, chunks === undefined ? answerWords : Math.max(answerWords, chunks * 2))
    events.push(...modelCall(rand, turn, 1, text, undefined, chunks))
    events.push({ type: 'step/end', data: { turn, step: 1, finish: 'stop' } })
  } else {
    const callId = `toolu_${turn.toString(36)}_${Math.floor(rand() * 2 ** 31).toString(36)}`
    const path = `src/${WORDS[Math.floor(rand() * WORDS.length)]}/${WORDS[Math.floor(rand() * WORDS.length)]}.ts`
    const args = JSON.stringify({ path })
    events.push(...modelCall(rand, turn, 1, sentence(rand, 4 + Math.floor(rand() * 10)), { id: callId, name: 'read_file', args }))
    events.push({ type: 'tool/call', data: { turn, step: 1, callId, name: 'read_file', arguments: args } })
    let output = `// ${path}\n`
    const size = 200 + Math.floor(rand() * 400)
    while (output.length < size) output += sentence(rand, 8) + '\n'
    events.push({ type: 'tool/result', data: { turn, step: 1, callId, name: 'read_file', content: [{ type: 'text', text: output }] } })
    events.push({ type: 'step/end', data: { turn, step: 1, finish: 'tool-calls' } })
    events.push({ type: 'step/start', data: { turn, step: 2 } })
    events.push(header(2, messageCount + 3))
    events.push(...modelCall(rand, turn, 2, sentence(rand, answerWords)))
    events.push({ type: 'step/end', data: { turn, step: 2, finish: 'stop' } })
  }
  events.push({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } })
  return events
}

/** A pool of `count` (or a little more: whole turns) realistic event bodies, reused round-robin by the append benchmarks. */
export function eventPool(count: number, seed = 42): EventBody[] {
  const rand = prng(seed)
  const pool: EventBody[] = []
  for (let turn = 1; pool.length < count; turn++) pool.push(...turnEvents(rand, turn, pool.length))
  return pool
}

/**
 * A complete session of exactly `length` events: whole turns (every turn closed, so opening it
 * repairs nothing), the last one sized to land on `length`. Times advance 1 ms per event.
 */
export function sessionLog(length: number, seed = 7): SessionEvent[] {
  const rand = prng(seed)
  const events: SessionEvent[] = []
  let messages = 0
  const push = (bodies: EventBody[]) => {
    for (const { type, data } of bodies) {
      events.push({ seq: events.length, time: 1_700_000_000_000 + events.length, type, data } as SessionEvent)
      if (type === 'user/message' || type === 'assistant/message' || type === 'tool/result') messages++
    }
  }
  for (let turn = 1; ; turn++) {
    const remaining = length - events.length
    if (remaining < 200) {
      // A tool turn has at most ~150 events, so at least ~50 remain: one plain turn fills them.
      const bodies = turnEvents(rand, turn, messages, remaining - 11)
      if (bodies.length !== remaining) throw new Error(`the last turn has ${bodies.length} events, not ${remaining}`)
      push(bodies)
      return events
    }
    push(turnEvents(rand, turn, messages))
  }
}

export function header(id: string): SessionHeader {
  return { id, version: 1, createdAt: 1_700_000_000_000 }
}

/** Mean bytes per JSONL line of a sample of events (for the write-ups). */
export function meanLineBytes(events: readonly SessionEvent[]): number {
  let bytes = 0
  for (const event of events) bytes += Buffer.byteLength(JSON.stringify(event)) + 1
  return bytes / events.length
}
