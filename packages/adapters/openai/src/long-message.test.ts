import { describe, expect, it } from 'vitest'
import { MAX_PROVIDER_MESSAGE } from '@bosun/core'
import { streamError } from './errors.js'

// An error reported inside the stream quotes the provider's message cut (review U3): one of
// 200,000 characters made an error of 200,049, written to turn/end, every llm/retry and the terminal.
describe('an in-stream error message is cut', () => {
  it('a message of 200,000 characters', () => {
    const error = streamError('OpenAI', { message: 'm'.repeat(200_000), type: 'server_error' })
    expect(error.message.length).toBeLessThan(MAX_PROVIDER_MESSAGE + 100)
    expect(error.code).toBe('SERVER')
  })

  it('the key masked before the cut', () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz'
    const error = streamError('OpenAI', { message: `${'a'.repeat(MAX_PROVIDER_MESSAGE - 5)}${secret}` }, secret)
    expect(error.message).not.toContain('sk-proj-a')
  })

  it("llama.cpp's context overflow in a stream is CONTEXT_WINDOW_EXCEEDED", () => {
    const error = streamError('llama.cpp', { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' })
    expect(error.code).toBe('CONTEXT_WINDOW_EXCEEDED')
  })
})
