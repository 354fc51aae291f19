// Review Y2: what a stream that ends early means is the same in the three HTTP adapters. A stream
// that ends before the server said why it stopped is TRANSPORT (retryable), after the chunks that
// did arrive, never a complete-looking answer; once the finish reason came, the end of the body
// completes it (no [DONE] needed). A finish reason that says the server gave up — vLLM's "abort" —
// is not a complete answer either. Against a real local server replaying a recorded OpenAI stream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { assemble, run } from './testing/helpers.js'
import { chunk, fixture, sse, startServer, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const model = () => openai({ baseURL: server.url, model: 'test-model' })
const recorded = fixture('openai-text')
const finishAt = recorded.findIndex((payload) => /"finish_reason":"stop"/.test(payload))

describe('a stream that ends early', () => {
  it('cut before the finish reason: TRANSPORT (retryable), after the text that arrived', async () => {
    server.reply(sse(recorded.slice(0, finishAt), { done: false }))
    const { chunks, error } = await run(model())
    expect(assemble(chunks).text).not.toBe('')
    expect(chunks.some((c) => c.type === 'finish')).toBe(false)
    expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
  })

  it('cut after the finish reason (before usage and [DONE]): complete', async () => {
    server.reply(sse(recorded.slice(0, finishAt + 1), { done: false }))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('finish_reason "abort" (vLLM: the engine aborted the request): TRANSPORT (retryable), not stop', async () => {
    server.reply(sse([chunk({ content: 'half an' }), chunk({}, 'abort')]))
    const { chunks, error } = await run(model())
    expect(chunks).toEqual([{ type: 'text-delta', text: 'half an' }])
    expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
    expect(error!.message).toContain('finish_reason "abort"')
  })
})
