// Test-only (excluded from the build): misbehaving HTTP servers on 127.0.0.1, shared by the
// adapters' hardening tests (the anthropic and ai-sdk tests import this file too). Each reply has
// the `(res, req)` shape of both adapters' test servers.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'

export type HostileReply = (res: ServerResponse, req: IncomingMessage) => void | Promise<void>

/** A server that only records who reached it: where a redirect points. It must stay empty. */
export interface Bystander {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: { method: string; path: string; headers: IncomingHttpHeaders }[]
  close(): Promise<void>
}

export async function bystander(): Promise<Bystander> {
  const requests: Bystander['requests'] = []
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers })
    req.resume()
    res.writeHead(500, { 'content-type': 'application/json' })
    res.end('{"error":{"message":"the bystander was reached"}}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The redirect statuses `fetch` would follow. */
export const REDIRECTS = [301, 302, 303, 307, 308] as const

/** Answers `status` with `Location: location`. */
export function redirect(status: number, location: string): HostileReply {
  return (res) => {
    res.writeHead(status, { location, 'content-type': 'text/plain' })
    res.end(`moved to ${location}`)
  }
}

/** What a streaming reply managed to send before the client went away. */
export interface Progress {
  /** Bytes handed to the socket (compressed bytes for a gzip reply). */
  written: number
  /** True once the whole body was sent. */
  finished: boolean
}

const INFLATED_MEMBER = 16 * 1024 * 1024
let member: Buffer | undefined

/**
 * A gzip bomb: `members` gzip members of 16 MiB of zeros each (about 16 KiB compressed apiece;
 * gzip allows members back to back), sent with `Content-Encoding: gzip`, so that `fetch` inflates
 * a small body into `members × 16 MiB`.
 */
export function gzipBomb(status: number, contentType: string, members: number, progress: Progress = { written: 0, finished: false }): HostileReply {
  member ??= gzipSync(Buffer.alloc(INFLATED_MEMBER), { level: 9 })
  return body(status, { 'content-type': contentType, 'content-encoding': 'gzip' }, Array.from({ length: members }, () => member!), progress)
}

/** `total` bytes of `x` in 64 KiB writes, each after the previous one left for the socket. */
export function hugeBody(status: number, contentType: string, total: number, progress: Progress = { written: 0, finished: false }): HostileReply {
  const piece = Buffer.alloc(64 * 1024, 'x')
  return body(status, { 'content-type': contentType }, Array.from({ length: Math.ceil(total / piece.length) }, () => piece), progress)
}

function body(status: number, headers: Record<string, string>, pieces: readonly Buffer[], progress: Progress): HostileReply {
  return async (res) => {
    res.writeHead(status, headers)
    for (const piece of pieces) {
      if (res.destroyed) return
      // The callback comes when the piece has left for the socket (or with an error once the
      // client closed): the server never runs further ahead than the socket's buffers.
      const failed = await new Promise<boolean>((resolve) => res.write(piece, (error) => resolve(error != null)))
      if (failed || res.destroyed) return
      progress.written += piece.length
    }
    progress.finished = true
    res.end()
  }
}

/**
 * An event stream that never ends: `first`, then `piece` every `everyMs` until the client closes
 * the connection. With a keep-alive as the piece, a server that never says anything.
 */
export function forever(piece: string, everyMs = 20, first = ''): HostileReply {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.write(first)
    while (!res.destroyed) {
      res.write(piece)
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  }
}

/** A fixed-length key for the redaction tests: no 5 characters of it occur in any message by chance. */
export const ECHOED_KEY = 'sk-test-Q7VZ9KLMN3PR5TW8YB2DF4HJ6GX1CV0BAE'

/** The 5-character windows of `key` that occur in `text`: none may, once the key is masked. */
export function keyPieces(text: string, key = ECHOED_KEY, width = 5): string[] {
  const found: string[] = []
  for (let at = 0; at + width <= key.length; at++) if (text.includes(key.slice(at, at + width))) found.push(key.slice(at, at + width))
  return found
}

/** `filler` characters, then the key, then more filler: the key starting at `offset`. */
export function keyAt(offset: number, filler = 'x'): string {
  return `${filler.repeat(offset)}${ECHOED_KEY}${filler.repeat(60)}`
}

/** Every connection that reached the server, once closed: a deadline must close the one it ends. */
export function allClosed<T>(requests: readonly { closed: Promise<T> }[]): Promise<T[]> {
  return Promise.all(requests.map((request) => request.closed))
}

/**
 * Node loads its fetch implementation on the first call (100–200 ms on a slow machine): tests
 * with a short deadline warm it up first so that the load does not count against the server.
 */
export async function warmUpFetch(): Promise<void> {
  await fetch('data:,').then((response) => response.text()).catch(() => {})
}
