import { randomUUID } from 'node:crypto'
import { BosunError, ErrorCodes } from '../errors.js'
import { createBrand, toFrozenJson, type JsonValue } from '../json.js'

export interface TextBlock {
  type: 'text'
  text: string
}

/** An image given inline as base64 data. */
export interface ImageBlock {
  type: 'image'
  mediaType: string
  data: string
}

/** Model reasoning. `signature` and `provider` let an adapter pass it back unchanged. */
export interface ReasoningBlock {
  type: 'reasoning'
  text: string
  signature?: string
  provider?: string
}

/** A tool call as the model produced it; `arguments` is the raw JSON string. */
export interface ToolCallBlock {
  type: 'tool-call'
  id: string
  name: string
  arguments: string
}

/** Content a user, a plugin or a tool can put in front of the model. */
export type ContentBlock = TextBlock | ImageBlock

/** Content of an assistant message. */
export type AssistantBlock = TextBlock | ReasoningBlock | ToolCallBlock

/**
 * Where a message came from. `kind: 'user'` is a person; any other kind (a plugin, a tool, a
 * parent agent) is context. Extra JSON fields are allowed (a user id for per-user rate limits).
 */
export interface MessageSource {
  kind: string
  /**
   * How the message was sent: `followup` and `steer` woke the agent, `inject` did not. The agent's
   * sends record it; a caller may set it first (the host records its own), to the same value only:
   * a send whose message says another is refused (DELIVERY_MISMATCH). Crash repair reads it to
   * tell input owed a wake from parked input (`agent.recovery.waiting`).
   */
  delivery?: string
  /**
   * Set by the agent on a waking send made while the running turn was already aborted (a Stop,
   * then the next message before that turn ended): its splice lands before the aborted turn's
   * `turn/end`, yet the agent runs a turn for it. Crash repair reads it to tell it from input a
   * Stop parked (`agent.recovery.waiting`). The agent's alone: a send whose message already
   * carries it, whatever its value, is refused (DELIVERY_MISMATCH).
   */
  afterAbort?: boolean
  [key: string]: JsonValue | undefined
}

/** The one immutable input type of the inbox. Deep-frozen; `id` is its stable receipt. */
export interface UserMessage {
  readonly id: string
  readonly role: 'user'
  readonly content: readonly ContentBlock[]
  readonly source: MessageSource
}

export interface AssistantMessage {
  readonly role: 'assistant'
  readonly content: readonly AssistantBlock[]
}

/** What public API calls accept wherever they take an input. */
export type MessageInput = string | UserMessage

export interface CreateUserMessageOptions {
  /** Defaults to a fresh UUID. */
  id?: string
  /** Defaults to `{ kind: 'user' }`. */
  source?: MessageSource
}

/**
 * Makes a deep-frozen UserMessage from a string or content blocks.
 *
 * @example
 * const message = createUserMessage('summarise a.txt', { source: { kind: 'user', userId: 'ada' } })
 */
export function createUserMessage(
  content: string | readonly ContentBlock[],
  options: CreateUserMessageOptions = {},
): UserMessage {
  const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content
  return toUserMessage({
    id: options.id ?? randomUUID(),
    role: 'user',
    content: blocks,
    source: options.source ?? { kind: 'user' },
  } as UserMessage)
}

/**
 * Accepts a string (made into a user-sourced message) or a UserMessage-shaped object, validates
 * it and returns a deep-frozen UserMessage. Already validated messages are returned as they are.
 */
export function toUserMessage(input: unknown, what = 'message'): UserMessage {
  if (typeof input === 'string') return createUserMessage(input)
  // Frozen JSON is not enough (any event's data is frozen JSON): only validated messages skip the check.
  if (typeof input === 'object' && input !== null && VALIDATED.has(input)) return input as UserMessage
  const problem = describeMessageProblem(input)
  if (problem !== undefined) {
    throw new BosunError(
      ErrorCodes.INVALID_MESSAGE,
      `Invalid ${what}: ${problem}. Pass a string or a message made by createUserMessage().`,
      { details: { what } },
    )
  }
  return toFrozenJson(input as UserMessage, what, VALIDATED)
}

/**
 * {@link toUserMessage}, with `delivery` recorded in its source (see {@link MessageSource.delivery}),
 * and `afterAbort: true` when the send woke the agent after its running turn was aborted (see
 * {@link MessageSource.afterAbort}). A string is made with them at once (no second copy); a
 * message whose source already says this `delivery` (the host records its own) is kept as it is.
 * A message whose source says another one is refused (DELIVERY_MISMATCH), not corrected: crash
 * recovery reads the field to decide who is owed a wake, so a disagreeing value would be wrong
 * data in the log, and overwriting it would drop what the caller said without telling them. So is
 * one that already carries `afterAbort` (any value): only the send itself can know it.
 */
export function toSentMessage(input: unknown, delivery: 'followup' | 'steer' | 'inject', afterAbort = false): UserMessage {
  const marks = afterAbort ? { afterAbort: true } : undefined
  if (typeof input === 'string') return createUserMessage(input, { source: { kind: 'user', delivery, ...marks } })
  const message = toUserMessage(input)
  const said = message.source.delivery
  if (said !== undefined && said !== delivery) throw deliveryMismatch(message.id, said, delivery)
  if (message.source.afterAbort !== undefined) throw afterAbortSet(message.id, message.source.afterAbort, delivery)
  if (said !== undefined && marks === undefined) return message
  return toUserMessage({ ...message, source: { ...message.source, delivery, ...marks } })
}

/** What a caller whose message says one delivery and whose call makes another can do about it. */
function deliveryMismatch(id: string, said: unknown, delivery: string): BosunError {
  const method = said === 'followup' || said === 'steer' || said === 'inject' ? said : undefined
  return new BosunError(
    ErrorCodes.DELIVERY_MISMATCH,
    `Cannot ${delivery}() message "${id}": its source.delivery is ${JSON.stringify(said)}, but ${delivery}() records "${delivery}" ` +
      '(crash recovery reads it to decide which input is owed a wake). ' +
      (method !== undefined
        ? `Send it with agent.${method}(), or leave source.delivery unset: the agent records how it was sent.`
        : `Set it to "${delivery}" or leave source.delivery unset (the agent records how it was sent); keep other data in another source field.`),
    { details: { id, delivery: said, expected: delivery } },
  )
}

/**
 * A caller-set `afterAbort`, refused whatever it says: whether a send came after an abort is known
 * only at its splice, so a caller's value is a copy of another send's (deriveUserMessage copies the
 * source), and crash repair would owe a wake to input the live agent parked.
 */
function afterAbortSet(id: string, said: unknown, delivery: string): BosunError {
  return new BosunError(
    ErrorCodes.DELIVERY_MISMATCH,
    `Cannot ${delivery}() message "${id}": its source.afterAbort is ${JSON.stringify(said)}, but only the agent records it, on a send made ` +
      'after the running turn was aborted (crash recovery reads it to decide which input is owed a wake). ' +
      'Send it again and leave source.afterAbort unset (a message made with deriveUserMessage() copies it: pass options.source).',
    { details: { id, afterAbort: said } },
  )
}

/** Messages that passed {@link toUserMessage}: frozen, checked, reusable without another check (an unforgeable brand). */
const VALIDATED = createBrand()

function describeMessageProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `expected a string or an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`
  }
  const message = value as Record<string, unknown>
  if (typeof message.id !== 'string' || message.id.length === 0) return '"id" must be a non-empty string'
  if (message.role !== 'user') return '"role" must be "user"'
  if (!Array.isArray(message.content) || message.content.length === 0) {
    return '"content" must be a non-empty array of content blocks'
  }
  for (let i = 0; i < message.content.length; i++) {
    const problem = describeBlockProblem(message.content[i])
    if (problem !== undefined) return `content[${i}] ${problem}`
  }
  const source = message.source
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return '"source" must be an object'
  if (typeof (source as Record<string, unknown>).kind !== 'string') return '"source.kind" must be a string'
  const extra = Object.keys(message).filter((key) => !['id', 'role', 'content', 'source'].includes(key))
  if (extra.length > 0) return `unknown field "${extra[0]}"`
  return undefined
}

function describeBlockProblem(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null) return 'must be an object'
  const b = block as Record<string, unknown>
  if (b.type === 'text') return typeof b.text === 'string' ? undefined : 'is a text block without a string "text"'
  if (b.type === 'image') {
    return typeof b.mediaType === 'string' && typeof b.data === 'string'
      ? undefined
      : 'is an image block without string "mediaType" and "data"'
  }
  return `has unknown type ${JSON.stringify(b.type)} (expected "text" or "image")`
}

/** The concatenated text of a message's text blocks. */
export function messageText(message: { readonly content: readonly { type: string }[] }): string {
  let text = ''
  for (const block of message.content) if (block.type === 'text') text += (block as TextBlock).text
  return text
}

const NOT_DERIVED: readonly string[] = Object.freeze([])

/**
 * The ids of the claimed messages a pre-step produced `message` from (`source.derivedFrom`).
 * Recovery and {@link foldConsumedWork} count a claimed message as stepped when anything derived
 * from it reached a step, so rewritten work is never run twice.
 */
export function derivedFrom(message: UserMessage): readonly string[] {
  const from = message.source.derivedFrom
  return Array.isArray(from) ? (from.filter((id) => typeof id === 'string') as string[]) : NOT_DERIVED
}

/**
 * Makes the message a pre-step enters in place of claimed input: a new id, the given content,
 * the first original's source (unless `options.source` is given) and `source.derivedFrom` listing
 * the originals' ids. Use it when a pre-step rewrites a claimed message under a new id.
 *
 * @example
 * ctx.hooks.preStep.tapPromise('translate', async (decision) =>
 *   decision.kind === 'enter'
 *     ? { kind: 'enter', messages: decision.messages.map((m) => deriveUserMessage(m, translate(messageText(m)))) }
 *     : decision)
 */
export function deriveUserMessage(
  from: UserMessage | readonly UserMessage[],
  content: string | readonly ContentBlock[],
  options: CreateUserMessageOptions = {},
): UserMessage {
  const originals = Array.isArray(from) ? (from as readonly UserMessage[]) : [from as UserMessage]
  if (originals.length === 0) throw new BosunError(ErrorCodes.INVALID_MESSAGE, 'deriveUserMessage(): "from" must name at least one message.')
  const source = options.source ?? originals[0]!.source
  return createUserMessage(content, {
    ...(options.id !== undefined ? { id: options.id } : {}),
    source: { ...source, derivedFrom: originals.map((message) => message.id) },
  })
}
