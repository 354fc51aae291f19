import { HostError } from './errors.js'
import { MAX_BODY_DEPTH, nestsDeeperThan } from './request.js'
import { SSE_HEADERS } from './routes/sessions.js'
import { BASE64_PATTERN, IMAGE_MEDIA_TYPES, imageDataProblem, type ImageMediaType } from './image-check.js'
import { CLIENT_MESSAGE_ID_PATTERN } from './schemas.js'
import { hasVisibleContent, withoutBlankText } from './visible-content.js'

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
  messages: { id: string; role: string; parts: { type: string; text?: string; mediaType?: string; url?: string }[] }[]
  bosun?: { delivery?: 'followup' | 'steer' | 'inject' }
  /** What `useChat` asks for: `submit-message` (a new message) or `regenerate-message` (a new answer to the last one). */
  trigger?: string
  /** The message `useChat` resends in place (an edit: `sendMessage({ text, messageId })`). */
  messageId?: string
}

/**
 * The message a chat request admits: its last message, which must be the user's, with text; its
 * id is the clientMessageId. One check for the owner's route and a cluster's non-owner route.
 */
export function chatMessage(input: ChatInput): { clientMessageId: string; content: string | ChatContentBlock[]; delivery: 'followup' | 'steer' | 'inject' } {
  // A regenerate resends the last user message, already admitted: it would stream that old turn again.
  if (input.trigger === 'regenerate-message') {
    throw new HostError('invalid-request', 'Regenerating an answer is not supported: a Bosun session keeps every turn it ran. Send the message again with a new id (it runs as a new turn), or fork the session before that turn (POST /v1/sessions/:id/fork with afterTurn) and chat in the fork.', { path: '/trigger' })
  }
  const index = input.messages.length - 1
  const last = input.messages[index]!
  // An edit (useChat's sendMessage with a messageId) resends an id the session has admitted: its
  // old turn would stream again, under the edited text.
  if (input.messageId !== undefined && input.messageId === last.id) {
    throw new HostError('invalid-request', `Editing a sent message is not supported: a Bosun session keeps every turn it ran, and message ${JSON.stringify(last.id)} keeps its first text and answer. Send the edited text as a new message (a new id), or fork the session before that message's turn (POST /v1/sessions/:id/fork with afterTurn) and chat in the fork.`, { path: '/messageId' })
  }
  if (last.role !== 'user') throw new HostError('invalid-request', 'The last message must be the user\'s: send the new user message last.', { path: `/messages/${index}/role` })
  if (!new RegExp(CLIENT_MESSAGE_ID_PATTERN).test(last.id)) throw new HostError('invalid-request', `The message id ${JSON.stringify(last.id)} must be 1-128 letters, digits, ".", "_", ":" or "-".`, { path: `/messages/${index}/id` })
  const content = messageContent(last.parts, `/messages/${index}/parts`)
  return { clientMessageId: last.id, content, delivery: input.bosun?.delivery ?? 'followup' }
}

/** A content block of a user message, as `POST …/messages` takes it. */
type ChatContentBlock = { type: 'text'; text: string } | { type: 'image'; mediaType: string; data: string }

/**
 * The content of the chat's user message: its text parts joined (a string), or, when it has
 * files (`useChat`'s `sendMessage({ files })`), its text and images as blocks in the message's
 * order. A file the model cannot be given is refused at its part — dropping it would run the
 * turn as if nothing had been attached. Other part types carry nothing for the model.
 */
function messageContent(parts: ChatInput['messages'][number]['parts'], path: string): string | ChatContentBlock[] {
  const blocks: ChatContentBlock[] = []
  parts.forEach((part, i) => {
    // The body's schema checks only that `parts` is an array: a part the route cannot read is the client's mistake.
    if (typeof part !== 'object' || part === null || typeof part.type !== 'string') {
      throw new HostError('invalid-request', `The part must be an object with a "type" (a UI message part such as { "type": "text", "text": "…" }); found ${part === null ? 'null' : typeof part === 'object' ? 'an object without a string "type"' : `a ${typeof part}`}.`, { path: `${path}/${i}` })
    }
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text })
    else if (part.type === 'file') blocks.push(imageBlock(part as { mediaType?: unknown; url?: unknown }, `${path}/${i}`))
  })
  if (!blocks.some((b) => b.type === 'image')) {
    const text = blocks.map((b) => (b as { text: string }).text).join('')
    if (!hasVisibleContent(text)) throw new HostError('invalid-request', 'The last user message has no text but whitespace and no image part: send the words to say (a text part), or an image (a file part); an empty message is not sent to the model.', { path })
    return text
  }
  // Text parts of whitespace only beside an image (a caption left blank) are left out, as POST …/messages leaves them out.
  return withoutBlankText(blocks)
}

/** A file part as an image block: an image given inline, a `data:` URL (what useChat makes of a FileList). */
function imageBlock(part: { mediaType?: unknown; url?: unknown }, path: string): ChatContentBlock {
  const mediaType = typeof part.mediaType === 'string' ? part.mediaType : ''
  if (!mediaType.startsWith('image/')) {
    throw new HostError('invalid-request', `The file part's mediaType is ${JSON.stringify(mediaType)}: a Bosun session gives the model only images (${IMAGE_MEDIA_TYPES.join(', ')}). Send the file's text as a text part, or leave the file out.`, { path })
  }
  // The types every provider takes (schemas.ts): another stays in the history and fails every later turn.
  if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
    throw new HostError('invalid-request', `The image's mediaType is ${JSON.stringify(mediaType)}: a Bosun session takes ${IMAGE_MEDIA_TYPES.join(', ')} (what every provider takes). Convert the image to one of them, or leave it out.`, { path })
  }
  const url = typeof part.url === 'string' ? part.url : ''
  const data = /^data:([^,]*),(.*)$/s.exec(url)
  if (data === null) {
    throw new HostError('invalid-request', `The image's url is not a data: URL: the host fetches no URL. Send the image inline (useChat's sendMessage({ files }) with a FileList makes a data: URL), or leave it out.`, { path })
  }
  const base64 = data[1]!.split(';').includes('base64') ? data[2]! : percentDecodedBase64(data[2]!, path)
  if (!BASE64.test(base64)) {
    throw new HostError('invalid-request', `The image's data: URL does not hold its bytes in base64${base64 === '' ? ' (it is empty)' : ''}: send the image as useChat reads a FileList (data:<type>;base64,<bytes>), or leave it out.`, { path })
  }
  const problem = imageDataProblem(mediaType as ImageMediaType, base64)
  if (problem !== undefined) throw new HostError('invalid-request', `The image's data: URL ${problem}.`, { path })
  return { type: 'image', mediaType, data: base64 }
}

const BASE64 = new RegExp(BASE64_PATTERN)

/**
 * The bytes of a `data:` URL without `;base64` (percent-encoded: `%XX` a byte, anything else its
 * UTF-8), in base64. Byte by byte, not `decodeURIComponent`, which refuses bytes that are not UTF-8
 * (an image's are not); into one buffer, the runs between escapes written whole.
 */
function percentDecodedBase64(encoded: string, path: string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8; an escape's 3 characters are 1 byte.
  const bytes = Buffer.allocUnsafe(encoded.length * 3)
  let length = 0
  let from = 0
  while (from < encoded.length) {
    const escape = encoded.indexOf('%', from)
    const end = escape === -1 ? encoded.length : escape
    if (end > from) length += bytes.write(encoded.slice(from, end), length, 'utf8')
    if (escape === -1) break
    const byte = hexByte(encoded, escape + 1)
    if (byte === undefined) {
      throw new HostError('invalid-request', 'The image\'s data: URL has a "%" not followed by two hexadecimal digits: percent-encode its bytes, or send them in base64 (data:<type>;base64,<bytes>).', { path })
    }
    bytes[length++] = byte
    from = escape + 3
  }
  return bytes.subarray(0, length).toString('base64')
}

/** The byte two hexadecimal digits at `at` stand for, or undefined. */
function hexByte(text: string, at: number): number | undefined {
  const high = hexDigit(text.charCodeAt(at))
  const low = hexDigit(text.charCodeAt(at + 1))
  return high === undefined || low === undefined ? undefined : high * 16 + low
}

function hexDigit(code: number): number | undefined {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 65 && code <= 70) return code - 55
  if (code >= 97 && code <= 102) return code - 87
  return undefined
}
