import { HostError } from './errors.js'
import { MAX_BODY_DEPTH, nestsDeeperThan } from './request.js'
import { SSE_HEADERS } from './routes/sessions.js'
import { CLIENT_MESSAGE_ID_PATTERN } from './schemas.js'

/** Headers of an AI SDK UI message stream (v1). */
export const UI_HEADERS = { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' }

/**
 * How deep a UI message part the host sends may nest, the part object counted. `useChat` keeps
 * the parts and sends the whole history back with every POST, so whatever JSON the host puts in a
 * part (a tool's input, a plugin's reject metadata) comes back inside a chat body: a deeper value
 * is sent as its JSON text instead ({@link withinDepth}).
 */
export const PART_DEPTH = MAX_BODY_DEPTH

/**
 * How deep a chat body may nest: `{ messages: [ { parts: [ part ] } ] }` wraps each part in four
 * levels, so that every part the host sent fits — the whole-body limit (100) refused every later
 * POST of a chat whose history held a tool input nested 96 levels. Deeper is refused before parsing.
 */
export const CHAT_BODY_DEPTH = PART_DEPTH + 4

/**
 * `value` as a part carries it `at` levels inside the part (a tool input: 1, a data part's field:
 * 2), or its JSON text (`text`, when the caller has it) if it would make the part nest deeper
 * than {@link PART_DEPTH}.
 */
export function withinDepth(value: unknown, at: number, text?: string): unknown {
  if (typeof value !== 'object' || value === null) return value
  const json = text ?? JSON.stringify(value)
  return nestsDeeperThan(json, PART_DEPTH - at) ? json : value
}

/** `POST /v1/ai-sdk/chat`'s body (checked by the `aiSdkChat` schema first). */
export interface ChatInput {
  id: string
  messages: { id: string; role: string; parts: { type: string; text?: string }[] }[]
  bosun?: { delivery?: 'followup' | 'steer' | 'inject' }
  /** What `useChat` asks for: `submit-message` (a new message) or `regenerate-message` (a new answer to the last one). */
  trigger?: string
}

/**
 * The message a chat request admits: its last message, which must be the user's, with text; its
 * id is the clientMessageId. One check for the owner's route and a cluster's non-owner route.
 */
export function chatMessage(input: ChatInput): { clientMessageId: string; content: string; delivery: 'followup' | 'steer' | 'inject' } {
  // A regenerate resends the last user message, already admitted: it would stream that old turn again.
  if (input.trigger === 'regenerate-message') {
    throw new HostError('invalid-request', 'Regenerating an answer is not supported: a Bosun session keeps every turn it ran. Send the message again with a new id (it runs as a new turn), or fork the session before that turn (POST /v1/sessions/:id/fork with afterTurn) and chat in the fork.', { path: '/trigger' })
  }
  const index = input.messages.length - 1
  const last = input.messages[index]!
  if (last.role !== 'user') throw new HostError('invalid-request', 'The last message must be the user\'s: send the new user message last.', { path: `/messages/${index}/role` })
  if (!new RegExp(CLIENT_MESSAGE_ID_PATTERN).test(last.id)) throw new HostError('invalid-request', `The message id ${JSON.stringify(last.id)} must be 1-128 letters, digits, ".", "_", ":" or "-".`, { path: `/messages/${index}/id` })
  const content = last.parts.filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text).join('')
  if (content === '') throw new HostError('invalid-request', 'The last user message has no text part.', { path: `/messages/${index}/parts` })
  return { clientMessageId: last.id, content, delivery: input.bosun?.delivery ?? 'followup' }
}
