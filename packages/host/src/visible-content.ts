import { HostError } from './errors.js'

/** A user message's content as the routes take it: a string, or text and image blocks. */
type Content = string | readonly { type: string; text?: string }[]

const isBlankText = (block: { type: string; text?: string }): boolean => block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === '')

/**
 * Whether `content` gives the model anything: a text with a character other than whitespace, or
 * a part other than text (an image). An empty or whitespace-only message ran a turn, and stayed
 * in the session's history, where a provider that refuses a blank user message (Anthropic's
 * "text content blocks must contain non-whitespace text") refuses every later turn of it too.
 */
export function hasVisibleContent(content: Content): boolean {
  if (typeof content === 'string') return content.trim() !== ''
  return content.some((block) => !isBlankText(block))
}

/**
 * `content` without its text blocks of whitespace only (or empty), as the session keeps it. Such
 * a block beside an image or other text is what a form sends for a caption left blank; Anthropic
 * refuses a request with one ("text content blocks must contain non-whitespace text"), and as the
 * block stays in the history, every later turn of the session too. A blank block right after a
 * text block is joined to it instead of dropped, so the message's text (its blocks' texts joined)
 * stays as sent. A string is kept as it is: it is one block, and a blank one is refused.
 */
export function withoutBlankText<T extends Content>(content: T): T {
  if (typeof content === 'string') return content
  const blocks = content as Exclude<Content, string>
  if (!blocks.some(isBlankText)) return content
  const kept: { type: string; text?: string }[] = []
  for (const block of blocks) {
    const previous = kept.at(-1)
    if (!isBlankText(block)) kept.push(block)
    else if (previous?.type === 'text' && typeof block.text === 'string') kept[kept.length - 1] = { ...previous, text: previous.text! + block.text }
  }
  return kept as unknown as T
}

/** `400 invalid-request` at `path` for a message with nothing to read, saying what to send. */
export function blankMessage(path: string): HostError {
  const message = 'the message has no text but whitespace and no image: send the words to say (or an image block); an empty message is not sent to the model'
  return new HostError('invalid-request', `Invalid request body at ${path}: ${message}.`, { path, problems: [{ path, message }] })
}
