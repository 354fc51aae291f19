// Test-only helpers: run one adapter request and assemble what it streamed.
import type { ModelAdapter, ModelChunk, ModelError, ModelRequest } from '@bosun/core'

export const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  system: 'You are terse.',
  messages: [{ role: 'user', id: 'u1', content: [{ type: 'text', text: 'Hello' }] }],
  tools: [],
  params: {},
  ...overrides,
})

export interface Run {
  chunks: ModelChunk[]
  error?: ModelError
}

/** Iterates one request to its end; a thrown error is returned, not thrown. */
export async function run(adapter: ModelAdapter, req: ModelRequest = request(), signal = new AbortController().signal): Promise<Run> {
  const chunks: ModelChunk[] = []
  try {
    for await (const chunk of adapter.stream(req, { signal })) chunks.push(chunk)
    return { chunks }
  } catch (error) {
    return { chunks, error: error as ModelError }
  }
}

export interface Assembled {
  text: string
  reasoning: string
  providers: string[]
  calls: { id: string; name: string; arguments: string }[]
  usage?: unknown
  finish?: string
}

/** What the core would assemble from the chunks (text, reasoning, tool calls by index). */
export function assemble(chunks: readonly ModelChunk[]): Assembled {
  const out: Assembled = { text: '', reasoning: '', providers: [], calls: [] }
  const calls = new Map<number, { id: string; name: string; arguments: string }>()
  for (const chunk of chunks) {
    if (chunk.type === 'text-delta') out.text += chunk.text
    else if (chunk.type === 'reasoning-delta') {
      out.reasoning += chunk.text
      if (chunk.provider !== undefined && !out.providers.includes(chunk.provider)) out.providers.push(chunk.provider)
    } else if (chunk.type === 'tool-call-delta') {
      let call = calls.get(chunk.index)
      if (!call) {
        call = { id: '', name: '', arguments: '' }
        calls.set(chunk.index, call)
        out.calls.push(call)
      }
      if (chunk.id !== undefined) call.id = chunk.id
      if (chunk.name !== undefined) call.name += chunk.name
      if (chunk.argumentsDelta !== undefined) call.arguments += chunk.argumentsDelta
    } else if (chunk.type === 'usage') out.usage = chunk.usage
    else out.finish = chunk.reason
  }
  return out
}

/** The concatenated `field` of every choice delta in recorded payloads. */
export function deltaText(payloads: readonly string[], field: 'content' | 'reasoning_content'): string {
  let text = ''
  for (const payload of payloads) {
    const parsed = JSON.parse(payload) as { choices?: { delta?: Record<string, unknown> }[] }
    const value = parsed.choices?.[0]?.delta?.[field]
    if (typeof value === 'string') text += value
  }
  return text
}
