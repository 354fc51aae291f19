import { HostError } from './errors.js'

/** A user message's content as the routes take it: a string, or text and image blocks. */
type Content = string | readonly { type: string; text?: string }[]

/**
 * Whether `content` gives the model anything: a text with a character other than whitespace, or
 * a part other than text (an image). An empty or whitespace-only message ran a turn, and stayed
 * in the session's history, where a provider that refuses a blank user message (Anthropic's
 * "text content blocks must contain non-whitespace text") refuses every later turn of it too.
 */
export function hasVisibleContent(content: Content): boolean {
  if (typeof content === 'string') return content.trim() !== ''
  return content.some((block) => block.type !== 'text' || (typeof block.text === 'string' && block.text.trim() !== ''))
}

/** `400 invalid-request` at `path` for a message with nothing to read, saying what to send. */
export function blankMessage(path: string): HostError {
  const message = 'the message has no text but whitespace and no image: send the words to say (or an image block); an empty message is not sent to the model'
  return new HostError('invalid-request', `Invalid request body at ${path}: ${message}.`, { path, problems: [{ path, message }] })
}
