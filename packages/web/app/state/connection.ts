/**
 * What the page knows about its connection to the host, as the client tells it: the client resumes
 * a dropped or refused stream by itself (`?after=<last seq>`, waiting what a refusal's
 * `retry-after` asks), and announces each next attempt — when it comes and why — to the stream's
 * `onRetry`, so the page can say "reconnecting (attempt n)", why, and count down to it, without a
 * reconnect loop or a copy of the client's backoff of its own. Both of the page's streams are told
 * apart by the store: the open session's (the banner over the conversation) and the host stream
 * that keeps the session list live (the notice in the list).
 */
import { HostClientError, type RetryNotice } from '@bosun/host/client'

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
  /** For `reconnecting`: when the client's next attempt comes (epoch ms, as it announced it), for the banner's countdown. */
  nextAttemptAt?: number
}

export interface Refusal { status: number; code?: string; retryAfterMs?: number }

/** Which of the page's streams a change is about: the open session's, or the host stream behind the session list. */
export type StreamKind = 'session' | 'list'

/** The state the client's announcement of its next attempt puts a stream in. */
export function reconnecting({ attempt, at, cause }: RetryNotice): ConnectionState {
  const refusal: Refusal | undefined = cause.kind === 'refused' ? { status: cause.status, ...(cause.code === undefined ? {} : { code: cause.code }), ...(cause.retryAfterMs === undefined ? {} : { retryAfterMs: cause.retryAfterMs }) } : undefined
  return { state: 'reconnecting', retries: attempt, ...(refusal === undefined ? {} : { refusal }), nextAttemptAt: at }
}

/** Why a stream is down, for the page: the host's refusal said plainly, or a lost connection. */
export function downBecause(refusal: Refusal | undefined): string {
  if (refusal === undefined) return 'Connection lost'
  if (refusal.code === 'too-many-streams') return 'The host is serving as many streams as it allows'
  if (refusal.code === 'too-many-client-streams') return 'The host is serving as many streams as it allows one address (this browser\'s other tabs count, and anything else connecting from this address)'
  return `The host answered ${refusal.status}${refusal.code === undefined ? '' : ` (${refusal.code})`}`
}

/**
 * What the user can do about a refusal, when waiting is not all: for 429 too-many-client-streams
 * (the host's `limits.streamsPerClient`), free streams or have the bound raised — a sentence to
 * append, its space first. Else "".
 */
export function whatToDo(refusal: Refusal | undefined): string {
  return refusal?.code === 'too-many-client-streams' ? ' Close other tabs open on this host, or ask its operator to raise limits.streamsPerClient.' : ''
}

/** " after the 5 s it asked for" when the refusal asked for a wait (its `retry-after`), else "". */
export function waitAsked(refusal: Refusal | undefined): string {
  return refusal?.retryAfterMs === undefined ? '' : ` after the ${Math.ceil(refusal.retryAfterMs / 1000)} s it asked for`
}

/**
 * When the next attempt comes, counted down: "next attempt in 4 s" (whole seconds, rounded up),
 * then "trying again now" once it is due (the attempt itself takes a moment).
 */
export function nextAttemptIn(nextAttemptAt: number | undefined, now: number): string {
  if (nextAttemptAt === undefined) return ''
  const seconds = Math.ceil((nextAttemptAt - now) / 1000)
  return seconds > 0 ? `next attempt in ${seconds} s` : 'trying again now'
}

/**
 * Why session `id` cannot be shown, when the host says it has no such session (404) or that no
 * session can have that id (400 at `/id`: an address someone typed or a link mangled, `../etc`);
 * said in the session's place. Null for any other refusal.
 */
export function sessionUnavailable(id: string, error: unknown): string | null {
  if (!(error instanceof HostClientError)) return null
  if (error.status === 404) return `Session "${id}" is not on this host (deleted, or the host uses another store): pick one from the list or start a new session.`
  const path = (error.details as { path?: unknown } | undefined)?.path
  if (error.status === 400 && path === '/id') return `"${id}" is not a session id (a session id is 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit): pick a session from the list or start a new session.`
  return null
}


/** What the page says in place of session `id` once it was removed (here, in another tab, by another client). */
export function sessionRemoved(id: string): string {
  return `Session "${id}" was removed: its conversation is gone from the host's store. Pick a session from the list or start a new session.`
}

/** Why a stream ended for good, for a 403 (the page is not on the host's own address) or anything else. */
export function stoppedBecause(what: string, error: unknown, reloadTo: string): string {
  if (error instanceof HostClientError && error.status === 403) return `The host refused this page (${error.code}): ${error.message} Open the web UI at the address the host prints, then reload.`
  return `${what} stopped: ${error instanceof Error ? error.message : String(error)}. Reload the page to ${reloadTo}.`
}
