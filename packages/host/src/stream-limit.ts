import type { Context, Hono, Next } from 'hono'
import { HostError } from './errors.js'
import { ROUTES } from './openapi.js'
import { clientAddressOf, forwardedHeaders } from './client-address.js'
import { TrustedProxies } from './trusted-proxy.js'
import { releasedAtEnd } from './stream-stall.js'

/** Streams open at once on a host, by default (`limits.streams`). */
export const DEFAULT_MAX_STREAMS = 1000
/**
 * Streams one client (one address) holds at once, by default (`limits.streamsPerClient`): a tenth
 * of the host's, so one client cannot take every stream from the others — and far more than a
 * client needs (the web UI holds two or three per tab).
 */
export const DEFAULT_MAX_CLIENT_STREAMS = 100
/**
 * How long a stream waits for its client to take what was last written, by default
 * (`limits.streamStallMs`): then the stream is closed (its slot, its hold on the session and its
 * connection let go); the client reconnects with `Last-Event-ID` and resumes where it was.
 */
export const DEFAULT_STREAM_STALL_MS = 60_000
/** What a refused stream's `retry-after` says, in seconds. */
const RETRY_AFTER_S = 5

/**
 * The host's bound on open SSE streams (the session, host and AI SDK streams, a cluster host's
 * streams of sessions others own): each holds a connection and its state for as long as the
 * client keeps it, so without a bound clients could open them until the host ran out of memory
 * or file descriptors. A stream takes a slot before its route runs (a refused chat POST admits
 * nothing) and gives it back when its body ends — read to the end, canceled by a client that went
 * away, or closed by the host (the session or the host closing); an answer that is not a stream
 * (an error, a 204) gives it back at once.
 *
 * Each client (its address: {@link clientAddressOf}; behind a trusted proxy, the client it
 * forwarded for) holds at most `perClient` of them: without that, one client could hold all `max`
 * and every other client would be refused. A request without a socket (in-process) counts only
 * towards `max`.
 */
export class StreamSlots {
  #open = 0
  /** Streams open per client; a client with none has no entry (the map is as small as the streams). */
  readonly #byClient = new Map<string, number>()
  constructor(readonly max: number, readonly perClient: number, readonly proxies = new TrustedProxies(), readonly stallMs = DEFAULT_STREAM_STALL_MS) {}

  /** Streams open now. */
  get open(): number {
    return this.#open
  }

  /** Takes a slot for the route `next` runs; refuses `503 too-many-streams` when none is free. */
  async admit(c: Context, next: Next): Promise<void> {
    const client = clientAddressOf(c.env, forwardedHeaders(c, this.proxies))
    // The client's own bound first: a client at it is told so (429), not that the host is full.
    if (client !== undefined && (this.#byClient.get(client) ?? 0) >= this.perClient) throw this.#clientFull()
    if (this.#open >= this.max) throw this.#full()
    this.#open++
    if (client !== undefined) this.#byClient.set(client, (this.#byClient.get(client) ?? 0) + 1)
    let held = true
    const release = (): void => {
      if (!held) return
      held = false
      this.#open--
      if (client === undefined) return
      const left = this.#byClient.get(client)! - 1
      if (left === 0) this.#byClient.delete(client)
      else this.#byClient.set(client, left)
    }
    try {
      await next()
    } catch (error) {
      release()
      throw error
    }
    const response = c.res
    if (response.body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      release()
      return
    }
    // Hono answers a HEAD with the GET route's headers and drops its body unread: a stream nobody
    // cancels kept its subscription and its hold on the session (never retired) for good.
    if (c.req.method === 'HEAD') {
      release()
      await response.body.cancel()
      return
    }
    // The connection @hono/node-server hands the app (none in-process): a stalled stream's is destroyed.
    const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing
    c.res = new Response(releasedAtEnd(response.body, release, this.stallMs, outgoing === undefined ? undefined : () => outgoing.destroy()), response)
  }

  #clientFull(): HostError {
    const error = new HostError('too-many-client-streams', `This client has ${this.perClient} streams open on this host, the most one client may hold at once: close a stream it no longer reads, or retry in ${RETRY_AFTER_S} s.`, { limit: this.perClient, retryAfter: RETRY_AFTER_S })
    // Constant text, logged once: clients behind one proxy (or NAT) share its address, and so its bound.
    error.serverNote = `too-many-client-streams: a client address holds ${this.perClient} SSE streams, the most limits.streamsPerClient allows; its further streams are refused with 429 until some close (clients behind one NAT, or one reverse proxy that trustedProxies does not name, share its address: raise limits.streamsPerClient for them).`
    return error
  }

  #full(): HostError {
    const error = new HostError('too-many-streams', `This host has ${this.max} streams open, the most it serves at once: close a stream this client no longer reads, or retry in ${RETRY_AFTER_S} s.`, { limit: this.max, retryAfter: RETRY_AFTER_S })
    // Logged once (a constant text: see the host's onError): the operator may raise the limit.
    error.serverNote = `too-many-streams: ${this.max} SSE streams are open, the most limits.streams allows; further streams are refused with 503 until some close (raise limits.streams if the host has the memory and file descriptors).`
    return error
  }
}

/**
 * Puts every SSE route of {@link ROUTES} behind `slots`. Registered before any route (the
 * cluster's included), after the exposure checks: an unauthorised client takes no slot.
 */
export function installStreamLimit(app: Hono, slots: StreamSlots): void {
  for (const route of ROUTES) {
    if (route.sse !== true) continue
    const method = route.method.toUpperCase()
    // A HEAD runs the GET route (Hono): its stream is made too, and must be let go.
    const counted = (m: string): boolean => m === method || (m === 'HEAD' && method === 'GET')
    app.use(route.path.replace(/\{(\w+)\}/g, ':$1'), (c, next) => (counted(c.req.method) ? slots.admit(c, next) : next()))
  }
}
