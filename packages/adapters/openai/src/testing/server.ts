// Test-only (excluded from the build): a real HTTP server on 127.0.0.1 that replays recorded
// Chat Completions streams as server-sent events and records what it was sent.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The JSON body as parsed. */
  body: Record<string, unknown>
  /** Resolves when the client's connection for this request closes. */
  closed: Promise<void>
}

/** How the server answers one request. */
export type Reply = (res: ServerResponse, req: IncomingMessage) => void | Promise<void>

export interface TestServer {
  /** The base URL to give the adapter (`http://127.0.0.1:<port>/v1`). */
  url: string
  requests: RecordedRequest[]
  /** Queues replies, one per request, in order; `fallback` answers when none is queued. */
  reply(...replies: Reply[]): void
  fallback: Reply
  /** Forgets queued replies and recorded requests (between tests). */
  reset(): void
  close(): Promise<void>
}

export async function startServer(): Promise<TestServer> {
  const queue: Reply[] = []
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()))
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8')
      let body: Record<string, unknown> = {}
      try {
        body = JSON.parse(text) as Record<string, unknown>
      } catch {
        body = { unparsed: text }
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, closed })
      res.socket?.setNoDelay(true)
      const reply = queue.shift() ?? self.fallback
      void Promise.resolve(reply(res, req)).catch(() => res.destroy())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const self: TestServer = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    fallback: sse(['{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}']),
    reset: () => {
      queue.length = 0
      requests.length = 0
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return self
}

/** The `data:` payloads of a recorded stream (`[DONE]` not included). */
export function fixture(name: string): string[] {
  const text = readFileSync(new URL(`../../fixtures/${name}.chunks.txt`, import.meta.url), 'utf8')
  return text.split('\n').filter((line) => line.trim() !== '')
}

/** A payload list as one SSE body: `data: <payload>\n\n` each, then `data: [DONE]` unless `done: false`. */
export function sseBytes(payloads: readonly string[], done = true): Buffer {
  const events = payloads.map((payload) => `data: ${payload}\n\n`).join('')
  return Buffer.from(done ? `${events}data: [DONE]\n\n` : events, 'utf8')
}

/** Cuts `bytes` at the given positions (sorted, deduplicated, inside the buffer). */
export function cut(bytes: Buffer, positions: readonly number[]): Buffer[] {
  const points = [...new Set(positions.filter((p) => p > 0 && p < bytes.length))].sort((a, b) => a - b)
  const pieces: Buffer[] = []
  let start = 0
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(start, point))
    start = point
  }
  return pieces
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function writeAll(res: ServerResponse, pieces: readonly Buffer[]): Promise<void> {
  for (const piece of pieces) {
    if (res.destroyed) return
    await new Promise<void>((resolve) => res.write(piece, () => resolve()))
    await tick()
  }
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  res.flushHeaders()
}

export interface SseOptions {
  /** Send `data: [DONE]` at the end. Default true. */
  done?: boolean
  /** Byte positions to cut the body at; default: one write per event, as recorded. */
  cuts?: readonly number[]
}

/** Replays payloads as SSE, one write per event (or cut at `cuts`), then ends. */
export function sse(payloads: readonly string[], options: SseOptions = {}): Reply {
  return async (res) => {
    startSse(res)
    const done = options.done ?? true
    const pieces = options.cuts
      ? cut(sseBytes(payloads, done), options.cuts)
      : [...payloads.map((p) => Buffer.from(`data: ${p}\n\n`)), ...(done ? [Buffer.from('data: [DONE]\n\n')] : [])]
    await writeAll(res, pieces)
    res.end()
  }
}

/** Writes raw byte pieces as an SSE body, then ends. */
export function raw(pieces: readonly Buffer[]): Reply {
  return async (res) => {
    startSse(res)
    await writeAll(res, pieces)
    res.end()
  }
}

/** An HTTP error answer. */
export function status(code: number, body: string, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers })
    res.end(body)
  }
}

/** Sends the payloads, then keeps the connection open and silent. */
export function stall(payloads: readonly string[]): Reply {
  return async (res) => {
    startSse(res)
    await writeAll(res, payloads.map((p) => Buffer.from(`data: ${p}\n\n`)))
  }
}

/** Sends the payloads, then destroys the socket (a connection reset mid-stream). */
export function reset(payloads: readonly string[]): Reply {
  return async (res) => {
    startSse(res)
    await writeAll(res, payloads.map((p) => Buffer.from(`data: ${p}\n\n`)))
    res.socket?.destroy()
  }
}

/** A chunk object with one choice, for streams built by hand. */
export function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })
}
