import { describe, expect, it } from 'vitest'
import { MAX_PROVIDER_MESSAGE } from '@bosun/core'
import { streamError } from './stream.js'

// An error reported inside the stream quotes Anthropic's message cut (review U3): a message of
// megabytes went whole into turn/end, every llm/retry and the terminal.
describe('an in-stream error message is cut', () => {
  it('a message of 200,000 characters', () => {
    const error = streamError('Anthropic', { type: 'overloaded_error', message: 'm'.repeat(200_000) })
    expect(error.message.length).toBeLessThan(MAX_PROVIDER_MESSAGE + 100)
    expect(error.code).toBe('SERVER')
  })

  it('a prompt too long is CONTEXT_WINDOW_EXCEEDED', () => {
    expect(streamError('Anthropic', { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' }).code).toBe('CONTEXT_WINDOW_EXCEEDED')
  })
})
