import { HostError } from './errors.js'
import { SSE_HEADERS } from './routes/sessions.js'
import { CLIENT_MESSAGE_ID_PATTERN } from './schemas.js'

/** Headers of an AI SDK UI message stream (v1). */
export const UI_HEADERS = { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' }

/** `POST /v1/ai-sdk/chat`'s body (checked by the `aiSdkChat` schema first). */
export interface ChatInput {
  id: string
  messages: { id: string; role: string; parts: { type: string; text?: string }[] }[]
  bosun?: { delivery?: 'followup' | 'steer' | 'inject' }
}

/**
 * The message a chat request admits: its last message, which must be the user's, with text; its
 * id is the clientMessageId. One check for the owner's route and a cluster's non-owner route.
 */
export function chatMessage(input: ChatInput): { clientMessageId: string; content: string; delivery: 'followup' | 'steer' | 'inject' } {
  const index = input.messages.length - 1
  const last = input.messages[index]!
  if (last.role !== 'user') throw new HostError('invalid-request', 'The last message must be the user\'s: send the new user message last.', { path: `/messages/${index}/role` })
  if (!new RegExp(CLIENT_MESSAGE_ID_PATTERN).test(last.id)) throw new HostError('invalid-request', `The message id ${JSON.stringify(last.id)} must be 1-128 letters, digits, ".", "_", ":" or "-".`, { path: `/messages/${index}/id` })
  const content = last.parts.filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text).join('')
  if (content === '') throw new HostError('invalid-request', 'The last user message has no text part.', { path: `/messages/${index}/parts` })
  return { clientMessageId: last.id, content, delivery: input.bosun?.delivery ?? 'followup' }
}
