/**
 * What the page knows about its connection to the host, read off the client's own fetches: the
 * client resumes a dropped or refused stream by itself (`?after=<last seq>`, waiting what a
 * refusal's `retry-after` asks), and this wrapper only notices when a stream's body ends or breaks
 * and how each next attempt is answered, so the page can say "reconnecting (attempt n)" — and why
 * — without a second reconnect loop of its own. It watches both of the page's streams: the open
 * session's (`/v1/sessions/<id>/stream`, the banner over the conversation) and the host stream
 * that keeps the session list live (`/v1/stream`, the notice in the list), each reported as its own.
 */
import { retriesStatus, retryAfterMs } from '@bosun/host/client'

export interface ConnectionState {
  /** `stopped`: the stream was refused for good (a 4xx such as 401, 403 or 404): no retry comes. */
  state: 'connecting' | 'live' | 'reconnecting' | 'stopped'
  /** Failed or dropped attempts since the stream was last live. */
  retries: number
  /**
   * The host's answer to the last attempt, when it refused it (a 5xx, 408 or 429; none after a
   * network error or a dropped stream): its status, its error code when it sent one, and the wait
   * its `retry-after` asked for (ms, capped as the client caps it).
   */
  refusal?: Refusal
  /** For `stopped`, when the page has more to say than a notice: why the stream ended and what to do. */
  why?: string
  /**
   * For `reconnecting`: when the client's next attempt is due (epoch ms, the earliest it comes:
   * its wait is jittered after that by up to half its backoff delay), for the banner's countdown.
   */
  nextAttemptAt?: number
}

/** How the page's streams retry: handed to the client's `stream` and `hostStream`, and read here to say when. */
export const STREAM_RETRY = { initialMs: 250, maxMs: 2000 } as const

/**
 * The least the client waits before its next attempt, after the `retries`-th failed one since the
 * stream was last live — the client's backoff (`@bosun/host/client`, `retry` option): the delay
 * starts at `initialMs`, doubles each wait up to `maxMs`, and each wait is between half the delay
 * and all of it, or, when the host asked for a wait (`retry-after`), that wait plus up to half the
 * delay. The client does not say when it will try, so the page works it out the same way.
 */
export function leastWaitMs(retries: number, retryAfterMs: number | undefined, retry: { initialMs: number; maxMs: number } = STREAM_RETRY): number {
  const delay = Math.min(retry.maxMs, retry.initialMs * 2 ** Math.max(0, retries - 1))
  return Math.max(retryAfterMs ?? 0, delay / 2)
}

export interface Refusal { status: number; code?: string; retryAfterMs?: number }

/** Which of the page's streams a change is about: the open session's, or the host stream behind the session list. */
export type StreamKind = 'session' | 'list'

type Change = (previous: ConnectionState) => ConnectionState

/** The stream a request opens, if it is one (its path, not its query: `?after=<seq>` follows a reconnect). */
function streamOf(input: Parameters<typeof fetch>[0]): StreamKind | undefined {
  const path = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, 'http://page.invalid').pathname
  if (/\/v1\/sessions\/[^/]+\/stream$/.test(path)) return 'session'
  if (path.endsWith('/v1/stream')) return 'list'
  return undefined
}

export interface WatchOptions {
  /** The streams' `retry` option, to say when the next attempt comes (STREAM_RETRY by default). */
  retry?: { initialMs: number; maxMs: number }
  /** The clock (tests pass their own). */
  now?: () => number
}

export function watchStreams(fetchImpl: typeof fetch, reportTo: (change: Change, stream: StreamKind) => void, { retry = STREAM_RETRY, now = Date.now }: WatchOptions = {}): typeof fetch {
  /** Reconnecting after the `retries`-th failed attempt: the client waits, then tries again. */
  const waiting = (retries: number, refusal?: Refusal): ConnectionState => ({
    state: 'reconnecting',
    retries,
    ...(refusal === undefined ? {} : { refusal }),
    nextAttemptAt: now() + leastWaitMs(retries, refusal?.retryAfterMs, retry),
  })
  return async (input, init) => {
    const stream = streamOf(input)
    if (stream === undefined) return fetchImpl(input, init)
    const report = (change: Change): void => reportTo(change, stream)
    const dropped = (): void => report((previous) => waiting(previous.state === 'reconnecting' ? previous.retries : previous.retries + 1))
    let response: Response
    try {
      response = await fetchImpl(input, init)
    } catch (error) {
      if (init?.signal?.aborted !== true) report((previous) => waiting(previous.retries + 1))
      throw error
    }
    if (!response.ok || response.body === null) {
      if (retriesStatus(response.status)) {
        const refusal = await refusalOf(response)
        // Dropped while its body was read (another session selected, logged out): no longer this
        // page's stream — a report would land on the state of the stream that replaced it.
        if (init?.signal?.aborted !== true) report((previous) => waiting(previous.retries + 1, refusal))
      }
      return response
    }
    report(() => ({ state: 'live', retries: 0 }))
    const reader = response.body.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) {
            if (init?.signal?.aborted !== true) dropped()
            controller.close()
          } else controller.enqueue(value)
        } catch (error) {
          if (init?.signal?.aborted !== true) dropped()
          controller.error(error)
        }
      },
      cancel: (reason) => reader.cancel(reason),
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

/** A refused attempt's status, error code (from a copy of its body: the client reads the body) and `retry-after`. */
async function refusalOf(response: Response): Promise<Refusal> {
  const body = (await response.clone().json().catch(() => undefined)) as { error?: { code?: unknown } } | undefined
  const code = body?.error?.code
  const wait = retryAfterMs(response.headers.get('retry-after'))
  return { status: response.status, ...(typeof code === 'string' ? { code } : {}), ...(wait === undefined ? {} : { retryAfterMs: wait }) }
}

/** Why a stream is down, for the page: the host's refusal said plainly, or a lost connection. */
export function downBecause(refusal: Refusal | undefined): string {
  if (refusal === undefined) return 'Connection lost'
  if (refusal.code === 'too-many-streams') return 'The host is serving as many streams as it allows'
  return `The host answered ${refusal.status}${refusal.code === undefined ? '' : ` (${refusal.code})`}`
}

/** " after the 5 s it asked for" when the refusal asked for a wait (its `retry-after`), else "". */
export function waitAsked(refusal: Refusal | undefined): string {
  return refusal?.retryAfterMs === undefined ? '' : ` after the ${Math.ceil(refusal.retryAfterMs / 1000)} s it asked for`
}

/**
 * When the next attempt comes, counted down: "next attempt in 4 s" (whole seconds, rounded up),
 * then "trying again now" once it is due — the client's wait may run up to half its backoff delay
 * past it (its jitter), and the attempt itself takes a moment.
 */
export function nextAttemptIn(nextAttemptAt: number | undefined, now: number): string {
  if (nextAttemptAt === undefined) return ''
  const seconds = Math.ceil((nextAttemptAt - now) / 1000)
  return seconds > 0 ? `next attempt in ${seconds} s` : 'trying again now'
}
