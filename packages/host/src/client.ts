/**
 * `@bosun/host/client`: a small fetch-based client for the host (browsers and Node). Routes are
 * typed (client-types.ts); `stream()` parses SSE with eventsource-parser and resumes by the last
 * seq it saw, with backoff, so a consumer sees every event once and in order across reconnects;
 * `hostStream()` follows the session list the same way, starting again from a new `hello`.
 */
import { fingerprinted, LogHash } from './client-log-hash.js'
import { Backoff, errorBody, retriesStatus, retryAfterMs, sseMessages } from './client-sse.js'
import type { ChildSessionItem, ClientOptions, HostClient, HostStreamFrame, HostStreamOptions, QueueOptions, RetryCause, SessionListItem, StreamFrame, StreamOptions, WireEvent } from './client-types.js'

/** How the streams retry, for callers that read a refused answer themselves (a page showing its reconnect state takes `onRetry`'s announcement instead). */
export { MAX_RETRY_AFTER_MS, retriesStatus, retryAfterMs } from './client-sse.js'

export type {
  ClientOptions, WireEvent, WireMessage, Queues, Delivery, Receipt, MessageStatus, PendingMessageStatus, SessionListItem,
  ChildSessionItem, SessionSnapshot, QueueOptions, StreamFrame, HostStreamFrame, HostStreamOptions, StreamOptions, RetryCause, RetryNotice, HostClient,
} from './client-types.js'

/** An error answer of the host: `code` is one of SPEC §10's stable codes. */
export class HostClientError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: unknown) {
    super(message)
    this.name = 'HostClientError'
  }
}

/** The longest wait a timer keeps (ms): Node waits 1 ms for anything longer. */
const MAX_RETRY_MS = 2 ** 31 - 1

/**
 * A stream's reconnect backoff, its `retry` option checked first: a delay that is not a positive
 * number of milliseconds (0, negative, NaN, past a timer's reach) would send the next attempt at
 * once, again and again, for as long as the host is away. `wait(cause)` announces the next
 * attempt to `onRetry` (unless the stream was aborted), then waits for it.
 */
function retrierFor(opts: StreamOptions | HostStreamOptions): { backoff: Backoff; wait(cause: RetryCause): Promise<void> } {
  const { initialMs = 200, maxMs = 5000 } = opts.retry ?? {}
  for (const [name, ms] of [['initialMs', initialMs], ['maxMs', maxMs]] as const) {
    if (typeof ms !== 'number' || !(ms > 0 && ms <= MAX_RETRY_MS)) {
      throw new HostClientError(0, 'invalid-argument', `retry.${name} must be a positive number of milliseconds, at most ${MAX_RETRY_MS}, got ${String(ms)}: leave it out for the default (initialMs 200, maxMs 5000).`, { path: `retry.${name}` })
    }
  }
  const backoff = new Backoff(initialMs, maxMs, opts.signal)
  return {
    backoff,
    wait: (cause) =>
      backoff.wait(cause.kind === 'refused' ? cause.retryAfterMs : undefined, ({ attempt, delayMs }) => {
        if (opts.signal?.aborted !== true) opts.onRetry?.({ attempt, delayMs, at: Date.now() + delayMs, cause })
      }),
  }
}

export function createClient(options: ClientOptions): HostClient {
  const base = options.baseUrl.replace(/\/+$/, '')
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  const auth: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }
  const enc = encodeURIComponent

  async function call<T>(method: string, path: string, body?: unknown, queue: QueueOptions = {}): Promise<T> {
    const response = await doFetch(`${base}${path}`, {
      method,
      headers: {
        ...auth,
        ...(method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }),
        ...(queue.inboxVersion === undefined ? {} : { 'if-match': `"${queue.inboxVersion}"` }),
      },
      ...(method === 'GET' || method === 'DELETE' ? {} : { body: JSON.stringify(body ?? {}) }),
    })
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error
      throw new HostClientError(response.status, error?.code ?? 'http-error', error?.message ?? `HTTP ${response.status} from ${method} ${path}`, error?.details)
    }
    return parsed as T
  }

  /**
   * Whether the host's log still holds `last` at its seq, compared by seq, time and type: the
   * check for a host that sends no `prefix` in its `hello` (one older than the fingerprint). It
   * cannot see a log that differs only before that event.
   */
  async function stillHolds(id: string, last: WireEvent): Promise<boolean> {
    try {
      const page = await call<{ events: WireEvent[] }>('GET', `/v1/sessions/${enc(id)}/events?after=${last.seq - 1}&limit=1`)
      const now = page.events[0]
      return now !== undefined && now.seq === last.seq && now.time === last.time && now.type === last.type
    } catch (error) {
      if (error instanceof HostClientError && error.code === 'replay-unavailable') return false // the log ends before it
      throw error
    }
  }

  async function* stream(id: string, opts: StreamOptions = {}): AsyncGenerator<StreamFrame> {
    let after = opts.after ?? -1
    let tail = opts.fromTail === true
    const { backoff, wait } = retrierFor(opts)
    /** The last event delivered (a reset names it; the check of a host without `prefix` uses it). */
    let last: WireEvent | undefined
    /**
     * The fingerprint of the log this stream received, up to `known.seq` (client-log-hash.ts):
     * from seq 0 on, or from the first hello's `prefix` when the stream starts at a cursor.
     * Undefined while not known (a host that sends no prefix).
     */
    let known: { seq: number; hash: LogHash } | undefined = after === -1 && !tail ? { seq: -1, hash: new LogHash() } : undefined
    /** Whether the open connection was checked (a first connection needs no check). */
    let checked = true
    /** Drops what was delivered (up to `seen`): the stream starts over from seq 0 with the log as it is now. */
    const reset = (seen: number): StreamFrame => {
      after = -1
      last = undefined
      known = { seq: -1, hash: new LogHash() }
      checked = true
      return { event: 'reset', data: { reason: 'diverged', seq: seen } }
    }
    /**
     * A reconnect's check, on its hello (before anything of the new connection is delivered):
     * whether the host's log up to the cursor is the one this stream received — by the
     * fingerprint when the host sends one and this stream knows its own at the cursor, else by
     * the last event delivered. `undefined`: the check could not be made (the host went away).
     */
    const sameLog = async (hello: { prefix?: { seq: number; hash: string } }): Promise<boolean | undefined> => {
      if (hello.prefix !== undefined && known !== undefined && known.seq === after) return hello.prefix.seq === after && hello.prefix.hash === known.hash.hex
      if (last === undefined) return true
      try {
        return await stillHolds(id, last)
      } catch (error) {
        if (error instanceof HostClientError && error.status >= 400 && error.status < 500) throw error
        return undefined
      }
    }
    const aborted = (): boolean => opts.signal?.aborted === true
    while (!aborted()) {
      const query = new URLSearchParams()
      if (tail) query.set('from', 'tail')
      else query.set('after', String(after))
      if (opts.chunks === false) query.set('chunks', 'false')
      const opened = await openStream(`/v1/sessions/${enc(id)}/stream?${query}`, opts.signal)
      if (opened === 'aborted') return
      if ('retry' in opened) {
        await wait(opened.retry)
        continue
      }
      if ('error' in opened) {
        // A restarted host whose log ends before the last event delivered: start over (below).
        if (last !== undefined && opened.error.code === 'replay-unavailable') {
          yield reset(last.seq)
          continue
        }
        throw opened.error // 4xx is the caller's to fix (no such session, not authorized): no retry
      }
      // Set when the new connection's hello shows another log: start over from seq 0.
      let diverged = false
      try {
        for await (const message of sseMessages(opened.body)) {
          const data = JSON.parse(message.data) as unknown
          if (message.event === 'hello') {
            const hello = data as { lastSeq: number; prefix?: { seq: number; hash: string } }
            // A reconnect: the stream is open, so the host is up — check it still has the log
            // this stream delivered before reading on (checked here, not before connecting, so a
            // host that is down costs stream attempts the caller can see, not a loop of checks).
            if (!checked) {
              const same = await sameLog(hello)
              if (same !== true) {
                diverged = same === false
                break
              }
              checked = true
            }
            // The host's prefix becomes this stream's fingerprint when it has none at its cursor:
            // on the first connection (from a caller's cursor, or the tail: the events between the
            // prefix and `lastSeq` follow and are fingerprinted), or when a tail stream dropped
            // before those arrived — that connection was checked by the last event instead.
            if (hello.prefix !== undefined && (known === undefined || known.seq !== after) && (tail || hello.prefix.seq === after)) known = { seq: hello.prefix.seq, hash: new LogHash(hello.prefix.hash) }
            if (tail) {
              tail = false
              after = hello.lastSeq
            }
          }
          if (message.event === 'session.event') {
            const seq = Number(message.id)
            // Every event received is fingerprinted in seq order, also those not delivered again.
            if (known !== undefined && seq > known.seq) {
              if (fingerprinted((data as WireEvent).type)) known.hash.add(message.data)
              known.seq = seq
            }
            if (seq <= after) continue // never twice
            after = seq
            last = data as WireEvent
          }
          backoff.reset()
          yield { event: message.event, data } as StreamFrame
          // The session is gone: nothing to reconnect to (the host would answer 404).
          if (message.event === 'session.removed') return
        }
      } catch (error) {
        if (aborted()) return
        // The check's own request was refused (4xx: not authorized any more, …): the caller's to fix.
        if (error instanceof HostClientError) throw error
      }
      if (diverged) {
        // What was built from this stream (or from the caller's cursor) belongs to another log.
        yield reset(last?.seq ?? after)
        continue
      }
      checked = false // the connection dropped: the next one is checked first
      if (aborted()) return
      await wait({ kind: 'dropped' })
    }
  }

  /**
   * The host stream: a `hello` with every session, then `session.added` / `session.status`. The
   * host keeps no cursor for it, so a reconnect simply starts with a new `hello` (the whole list
   * again: replace what you hold with it), after the same backoff as {@link stream}.
   */
  async function* hostStream(opts: HostStreamOptions = {}): AsyncGenerator<HostStreamFrame> {
    const { backoff, wait } = retrierFor(opts)
    const aborted = (): boolean => opts.signal?.aborted === true
    while (!aborted()) {
      const opened = await openStream('/v1/stream', opts.signal)
      if (opened === 'aborted') return
      if ('retry' in opened) {
        await wait(opened.retry)
        continue
      }
      if ('error' in opened) throw opened.error
      try {
        for await (const message of sseMessages(opened.body)) {
          backoff.reset()
          yield { event: message.event, data: JSON.parse(message.data) as unknown } as HostStreamFrame
        }
      } catch {
        if (aborted()) return
      }
      if (aborted()) return
      await wait({ kind: 'dropped' })
    }
  }

  /**
   * Opens one stream attempt: its body, a refusal that is the caller's to fix (a 4xx: no such
   * session, not authorized), a retry (a network error, a 5xx — the host is away or, 503
   * too-many-streams, full —, a 408 or 429: why, with the wait its `retry-after` asks for), or `aborted`.
   */
  async function openStream(path: string, signal: AbortSignal | undefined): Promise<{ body: ReadableStream<Uint8Array> } | { error: HostClientError } | { retry: RetryCause } | 'aborted'> {
    let response: Response
    try {
      response = await doFetch(`${base}${path}`, { headers: { ...auth, accept: 'text/event-stream' }, ...(signal ? { signal } : {}) })
    } catch (error) {
      return signal?.aborted === true ? 'aborted' : { retry: { kind: 'unreachable', error } }
    }
    if (response.ok && response.body) return { body: response.body }
    const error = await errorBody(response)
    if (!retriesStatus(response.status)) return { error: new HostClientError(response.status, error?.code ?? 'http-error', error?.message ?? `HTTP ${response.status}`, error?.details) }
    const wait = retryAfterMs(response.headers.get('retry-after'))
    return { retry: { kind: 'refused', status: response.status, ...(typeof error?.code === 'string' ? { code: error.code } : {}), ...(wait === undefined ? {} : { retryAfterMs: wait }) } }
  }

  return {
    host: () => call('GET', '/v1/host'),
    listSessions: async () => (await call<{ sessions: SessionListItem[] }>('GET', '/v1/sessions')).sessions,
    createSession: (id) => call('POST', '/v1/sessions', id === undefined ? {} : { id }),
    getSession: (id) => call('GET', `/v1/sessions/${enc(id)}`),
    events: (id, page = {}) => {
      const q = new URLSearchParams()
      if (page.after !== undefined) q.set('after', String(page.after))
      if (page.limit !== undefined) q.set('limit', String(page.limit))
      return call('GET', `/v1/sessions/${enc(id)}/events?${q}`)
    },
    children: async (id) => (await call<{ children: ChildSessionItem[] }>('GET', `/v1/sessions/${enc(id)}/children`)).children,
    send: (id, message, sendOptions = {}) =>
      call('POST', `/v1/sessions/${enc(id)}/messages${sendOptions.waitDurable ? '?wait=durable' : ''}`, {
        clientMessageId: message.clientMessageId ?? globalThis.crypto.randomUUID(),
        content: message.content,
        ...(message.delivery === undefined ? {} : { delivery: message.delivery }),
      }),
    messageStatus: (id, messageId) => call('GET', `/v1/sessions/${enc(id)}/messages/${enc(messageId)}`),
    editMessage: (id, messageId, content, queue) => call('PATCH', `/v1/sessions/${enc(id)}/inbox/${enc(messageId)}`, { content }, queue),
    removeMessage: (id, messageId, queue) => call('DELETE', `/v1/sessions/${enc(id)}/inbox/${enc(messageId)}`, undefined, queue),
    promote: (id, messageId, queue) => call('POST', `/v1/sessions/${enc(id)}/inbox/${enc(messageId)}/promote`, {}, queue),
    reorder: (id, order, queue) => call('PUT', `/v1/sessions/${enc(id)}/inbox/order`, { order }, queue),
    cancel: (id, cancelOptions = {}) => call('POST', `/v1/sessions/${enc(id)}/cancel`, cancelOptions),
    wake: (id) => call('POST', `/v1/sessions/${enc(id)}/wake`, {}),
    fork: (id, forkOptions = {}) => call('POST', `/v1/sessions/${enc(id)}/fork`, forkOptions),
    removeSession: (id) => call('DELETE', `/v1/sessions/${enc(id)}`),
    stream,
    hostStream,
    login: (token) => call('POST', '/v1/login', { token }),
    logout: () => call('POST', '/v1/logout', {}),
  }
}
