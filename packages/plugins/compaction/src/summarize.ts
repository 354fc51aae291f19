import type { ModelAdapter, ModelMessage, ModelRequest } from '@bosun/core'
import { renderTranscript } from './transcript.js'

/** The system prompt of a summary request. */
export const SUMMARY_SYSTEM_PROMPT = [
  'You compact the history of a conversation between a user and an AI assistant that uses tools.',
  'Write a summary that lets the assistant continue the work without the original messages:',
  "the user's goals and constraints, decisions made, facts and results learned (file names, values, errors),",
  'what was done with which tools, and what is still open. Keep names, numbers and identifiers exact.',
  'Be concise: the summary must be much shorter than the conversation. Write only the summary.',
].join(' ')

/** How the summary is introduced to the model in the compacted history. */
export const SUMMARY_PREFIX = 'Summary of the earlier part of this conversation (older messages were compacted):\n\n'

/**
 * Asks `adapter` for a summary of `messages` in a separate request, marked
 * `params: { compaction: true }` and without tools, and collects its text. It does not go through
 * the agent's hooks and is not logged as a model call; only its result is (`compaction/summary`).
 * Errors (and an abort through `signal`) are thrown.
 */
export async function summarize(adapter: ModelAdapter, messages: readonly ModelMessage[], signal: AbortSignal): Promise<string> {
  const text = `Summarise this conversation:\n\n<conversation>\n${renderTranscript(messages)}\n</conversation>`
  const request: ModelRequest = {
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [{ role: 'user', id: 'compaction-request', content: [{ type: 'text', text }] }],
    tools: [],
    params: { compaction: true },
  }
  let summary = ''
  for await (const chunk of adapter.stream(request, { signal })) {
    if (signal.aborted) break
    if (chunk.type === 'text-delta') summary += chunk.text
  }
  signal.throwIfAborted()
  return summary.trim()
}
