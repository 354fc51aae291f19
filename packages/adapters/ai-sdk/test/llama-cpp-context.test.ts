// llama.cpp's server (an OpenAI-compatible server the docs name) refuses a prompt longer than its
// context with HTTP 400 `exceed_context_size_error`: "request (4476 tokens) exceeds the available
// context size (4096 tokens)" (newer builds: "the request exceeds the available context size, try
// increasing it"). Through @ai-sdk/openai-compatible that is an APICallError 400 quoting it: it is
// CONTEXT_WINDOW_EXCEEDED — the code the compaction plugin answers by compacting — not INVALID_REQUEST.
import { describe, expect, it } from 'vitest'
import { aiSdk } from '../src/index.js'
import { apiCallError, mockV3 } from './mock-model.js'

const bodies = [
  '{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}',
  '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}',
]

describe("llama.cpp's context overflow through the bridge", () => {
  for (const body of bodies) {
    it(`${JSON.parse(body).error.message}: CONTEXT_WINDOW_EXCEEDED, not retryable`, async () => {
      const error = apiCallError({ message: JSON.parse(body).error.message, statusCode: 400, responseBody: body })
      const adapter = aiSdk({ model: mockV3({ provider: 'llama.chat', responses: [{ throws: error }] }) })
      let thrown: unknown
      try {
        for await (const chunk of adapter.stream({ system: '', messages: [], tools: [], params: {} }, { signal: new AbortController().signal })) void chunk
      } catch (caught) {
        thrown = caught
      }
      expect(thrown).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400, retryable: false })
    })
  }
})
