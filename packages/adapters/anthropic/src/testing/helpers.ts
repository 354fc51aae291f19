// Test-only helpers (excluded from the build): a fake key, requests and chunk collection.
import { ModelError } from '@bosun/core'
import type { ModelChunk, ModelRequest } from '@bosun/core'
import { anthropic } from '../adapter.js'
import type { AnthropicOptions } from '../options.js'

/** The fake key every test uses; no output may ever contain it. */
export const SECRET = 'sk-ant-test-SECRET-4242'
export const KEY_ENV = 'BOSUN_TEST_ANTHROPIC_KEY'
process.env[KEY_ENV] = SECRET

/** An adapter on the test server with the fake key. */
export function model(baseURL: string, options: Partial<AnthropicOptions> = {}) {
  return anthropic({ model: 'claude-test', baseURL, apiKeyEnv: KEY_ENV, ...options })
}

/** How messages name a server other than api.anthropic.com, such as the test server: by its host. */
export const serverAt = (baseURL: string): string => `The server at ${new URL(baseURL).host}`

/** A one-message request. */
export function ask(text = 'hi', extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: '', messages: [{ role: 'user', id: 'u1', content: [{ type: 'text', text }] }], tools: [], params: {}, ...extra }
}

export interface Collected {
  chunks: ModelChunk[]
  error?: ModelError
}

/** Iterates a stream to its end; a thrown error must be a ModelError. */
export async function collect(stream: AsyncIterable<ModelChunk>): Promise<Collected> {
  const chunks: ModelChunk[] = []
  try {
    for await (const chunk of stream) chunks.push(chunk)
  } catch (error) {
    if (!(error instanceof ModelError)) throw error
    return { chunks, error }
  }
  return { chunks }
}

/** The text of all text deltas. */
export const textOf = (chunks: readonly ModelChunk[]): string =>
  chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.text : '')).join('')

export { warmUpFetch } from '../../../openai/src/testing/hostile.js'
