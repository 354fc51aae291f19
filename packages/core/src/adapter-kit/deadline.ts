import type { JsonSchema } from '../schema.js'
import { ModelError, type ModelChunk } from '../model.js'

/** The default of every adapter's `idleTimeoutMs`: one minute without content. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000

/** A timer's longest wait in ms: Node fires a longer one after 1 ms (every call would be a TIMEOUT). */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * The JSON Schema properties of the two deadlines every HTTP adapter accepts. Spread into each
 * adapter's options schema so that the adapters share one definition (and one validation) of them.
 */
export const deadlineOptionsSchema: { idleTimeoutMs: JsonSchema; timeoutMs: JsonSchema } = {
  idleTimeoutMs: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_TIMER_MS,
    description:
      'Fail with TIMEOUT when no content (text, reasoning or tool-call progress) arrives for this long, in ms; keep-alives do not count. Default 60000.',
  },
  timeoutMs: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_TIMER_MS,
    description: 'Fail with TIMEOUT when one request (headers, stream and all) takes longer than this, in ms. Default: no limit.',
  },
}

/** The deadlines of one request. */
export interface Deadlines {
  /** No progress for this long fails the stream. */
  idleTimeoutMs: number
  /** The whole stream taking longer than this fails it. */
  timeoutMs?: number | undefined
}

/**
 * True for a chunk that moves a response forward: text or reasoning (a signature counts), a tool
 * call's id, name or arguments, the finish. Usage and empty deltas are what a server can send to
 * keep a connection open without ever answering, so they are not.
 */
export function isContentChunk(chunk: ModelChunk): boolean {
  switch (chunk.type) {
    case 'text-delta':
      return chunk.text !== ''
    case 'reasoning-delta':
      return chunk.text !== '' || (chunk.signature ?? '') !== ''
    case 'tool-call-delta':
      return !!chunk.id || !!chunk.name || !!chunk.argumentsDelta
    case 'finish':
      return true
    default:
      return false
  }
}

/**
 * Wraps one model response so that it fails with a `TIMEOUT` ModelError (retryable) instead of
 * holding the turn open: when no **content** ({@link isContentChunk}) arrives for `idleTimeoutMs` —
 * waiting for the headers included, and whatever keep-alives (SSE comments, Anthropic `ping`,
 * role-only or empty deltas) the server sends meanwhile — or when the whole response takes longer
 * than `timeoutMs`. The source is asked to `return()`; the adapter closes the connection when the
 * error reaches it. The idle clock runs only while waiting for the source, so a slow consumer is
 * not counted against the server; the total clock is wall time.
 */
export function withContentDeadline(source: AsyncIterable<ModelChunk>, deadlines: Deadlines, what: string): AsyncGenerator<ModelChunk> {
  const idle = deadlines.idleTimeoutMs
  return watch(source, {
    idleMs: idle,
    ...(deadlines.timeoutMs === undefined ? {} : { totalMs: deadlines.timeoutMs }),
    isProgress: isContentChunk,
    idleMessage: `${what} sent no content (text, reasoning or a tool call) for ${idle} ms; keep-alives do not count. The connection looks stalled (raise idleTimeoutMs for a model that thinks longer without streaming).`,
    totalMessage: `${what} did not complete the response within timeoutMs (${deadlines.timeoutMs} ms).`,
  })
}

/**
 * Wraps a stream so that a connection that goes silent for `idleMs` (no item at all) fails with
 * a `TIMEOUT` ModelError. Every item counts as life; a model adapter should use
 * {@link withContentDeadline}, for which keep-alives do not.
 */
export function withIdleTimeout<T>(source: AsyncIterable<T>, idleMs: number, what: string): AsyncGenerator<T> {
  return watch(source, { idleMs, isProgress: () => true, idleMessage: `${what} sent nothing for ${idleMs} ms; the connection looks stalled.` })
}

interface Watch<T> {
  idleMs: number
  totalMs?: number
  isProgress: (item: T) => boolean
  idleMessage: string
  totalMessage?: string
}

async function* watch<T>(source: AsyncIterable<T>, options: Watch<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]()
  let expire!: (error: ModelError) => void
  const expired = new Promise<never>((_, reject) => {
    expire = reject
  })
  expired.catch(() => {}) // raced below; never an unhandled rejection
  const total = options.totalMs === undefined ? undefined : setTimeout(() => expire(new ModelError('TIMEOUT', options.totalMessage ?? '')), options.totalMs)
  let idle: NodeJS.Timeout | undefined
  // The idle clock runs only while waiting for the source: what the consumer does with an item
  // (however slow) is not the server's silence. `budget` is what is left since the last progress.
  let budget = options.idleMs
  let finished = false
  try {
    while (true) {
      const started = performance.now()
      idle = setTimeout(() => expire(new ModelError('TIMEOUT', options.idleMessage)), Math.max(0, budget))
      const next = await Promise.race([iterator.next(), expired])
      clearTimeout(idle)
      if (next.done) {
        finished = true
        return
      }
      budget = options.isProgress(next.value) ? options.idleMs : budget - (performance.now() - started)
      yield next.value
    }
  } finally {
    clearTimeout(idle)
    clearTimeout(total)
    // A timeout, an error, or a consumer that stopped early (`break`, `return()`): the source is
    // still open and must be told, or its socket and timers outlive the call.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {})
  }
}
