// Test-only helpers (excluded from the build): a real HTTP server on 127.0.0.1 that records what it
// receives and replays Anthropic event streams, cut at chosen byte positions, then ends, stalls or
// resets the connection.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body. */
  body: any
  /** Resolves when the connection of this exchange closes: `ended` is true when the server finished the response. */
  closed: Promise<{ ended: boolean }>
}

/** Answers one request. */
export type Reply = (res: ServerResponse, req: IncomingMessage) => Promise<void> | void

export interface FakeServer {
  /** `http://127.0.0.1:<port>`, the adapter's `baseURL`. */
  readonly baseURL: string
  readonly requests: ReceivedRequest[]
  /** Queues replies, one per request, in order; with none left the server answers 500. */
  reply(...replies: Reply[]): FakeServer
  close(): Promise<void>
}

export async function fakeServer(): Promise<FakeServer> {
  const queue: Reply[] = []
  const requests: ReceivedRequest[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const closed = new Promise<{ ended: boolean }>((resolve) => res.on('close', () => resolve({ ended: res.writableFinished })))
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text), closed })
    const reply = queue.shift() ?? status(500, '{"type":"error","error":{"type":"api_error","message":"no reply queued"}}')
    try {
      await reply(res, req)
    } catch {
      res.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const api: FakeServer = {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    reply(...replies) {
      queue.push(...replies)
      return api
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return api
}

/** The events of a recorded fixture (one JSON payload per line). */
export function fixture(name: string): Record<string, unknown>[] {
  const text = readFileSync(new URL(`../../fixtures/${name}.chunks.txt`, import.meta.url), 'utf8')
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** One SSE frame per event: `event: <type>` and `data: <json>`. */
export function frames(events: readonly Record<string, unknown>[]): string[] {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
}

/**
 * The bytes of `data`, cut again at the given byte positions (sorted, deduplicated, out-of-range
 * ones ignored). A cut may fall inside a UTF-8 character.
 */
export function recut(data: readonly string[] | Buffer, cuts: readonly number[]): Buffer[] {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.join(''), 'utf8')
  if (bytes.length === 0) return []
  const at = [...new Set(cuts.filter((cut) => cut > 0 && cut < bytes.length))].sort((a, b) => a - b)
  const out: Buffer[] = []
  let start = 0
  for (const cut of [...at, bytes.length]) {
    out.push(bytes.subarray(start, cut))
    start = cut
  }
  return out
}

export interface StreamOptions {
  /** What happens after the last piece: end the response (default), stall forever, or reset the connection. */
  then?: 'end' | 'stall' | 'reset'
  /** Wait between pieces, in ms (default: one event-loop turn, so each piece leaves as its own write). */
  delayMs?: number
  headers?: Record<string, string>
}

/** A 200 event stream written piece by piece. */
export function stream(pieces: readonly (string | Buffer)[], options: StreamOptions = {}): Reply {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...options.headers })
    res.flushHeaders()
    for (const piece of pieces) {
      if (res.destroyed) return
      res.write(piece)
      await pause(options.delayMs)
    }
    if (options.then === 'stall') return
    if (options.then === 'reset') {
      const socket = res.socket as (Socket & { resetAndDestroy?: () => void }) | null
      if (socket?.resetAndDestroy) socket.resetAndDestroy()
      else socket?.destroy()
      return
    }
    res.end()
  }
}

/** A recorded (or constructed) event list as an event stream, one write per event. */
export function events(list: readonly Record<string, unknown>[], options: StreamOptions = {}): Reply {
  return stream(frames(list), options)
}

/** An error response. */
export function status(code: number, body: string, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers })
    res.end(body)
  }
}

const pause = (ms: number | undefined): Promise<void> =>
  new Promise((resolve) => (ms === undefined ? setImmediate(resolve) : setTimeout(resolve, ms)))
