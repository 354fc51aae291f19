// Test-only (excluded from the build): deadline tests that do not race the machine. The deadlines
// run on setTimeout and performance.now; with those faked (vi.useFakeTimers), the test moves the
// clock itself, and the server below sends a piece only when the test says so. Every step waits
// for a condition (the request arrived, a piece left, a chunk or an error came out), never for a
// time: a loaded machine makes the test slower, not different. Shared by the anthropic adapter's
// deadline tests, as hostile.ts is.
import type { ModelAdapter, ModelChunk, ModelError, ModelRequest } from '@bosun/core'
import { expect, vi } from 'vitest'
import type { HostileReply } from './hostile.js'

/** The timers a content deadline reads; the sockets, undici's and the server's own stay real. */
export const DEADLINE_CLOCK: { toFake: ('setTimeout' | 'clearTimeout' | 'performance')[] } = { toFake: ['setTimeout', 'clearTimeout', 'performance'] }

/** A streaming reply that sends nothing by itself after its headers and `first`. */
export interface ByHand {
  reply: HostileReply
  /** Resolves once the request reached the server and the headers and `first` were sent. */
  opened: Promise<void>
  /** Writes `piece`; resolves when it has left for the socket. */
  send(piece: string): Promise<void>
}

export function byHand(first = ''): ByHand {
  let response: Parameters<HostileReply>[0] | undefined
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return {
    reply: async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.flushHeaders()
      if (first !== '') await new Promise<void>((resolve) => res.write(first, () => resolve()))
      response = res
      open()
    },
    opened,
    send: async (piece) => {
      if (response === undefined) throw new Error('send() before the request reached the server: await opened first')
      // A closed connection may never call a write's callback: fail now instead of hanging.
      if (response.destroyed) throw new Error('send() after the client closed the connection')
      await new Promise<void>((resolve, reject) => response!.write(piece, (error) => (error ? reject(error) : resolve())))
    },
  }
}

/** What one pull of a model stream gave. */
export type Pulled = { chunk: ModelChunk } | { done: true } | { error: ModelError }

/**
 * A model stream pulled one item at a time. The idle clock of a content deadline runs only while
 * a pull is pending, so the test starts one, moves the clock, and then awaits it.
 */
export function pull(adapter: ModelAdapter, request: ModelRequest): { next(): Promise<Pulled>; close(): Promise<void> } {
  const iterator = adapter.stream(request, { signal: new AbortController().signal })[Symbol.asyncIterator]()
  return {
    next: () =>
      iterator.next().then(
        (result): Pulled => (result.done ? { done: true } : { chunk: result.value }),
        (error: unknown): Pulled => ({ error: error as ModelError }),
      ),
    close: async () => void (await iterator.return?.()),
  }
}

/** Pulls chunks until `enough(chunks)`; throws if the stream ends (or fails) first. */
export async function pullUntil(pulled: { next(): Promise<Pulled> }, enough: (chunks: readonly ModelChunk[]) => boolean): Promise<ModelChunk[]> {
  const chunks: ModelChunk[] = []
  while (!enough(chunks)) {
    const next = await pulled.next()
    if (!('chunk' in next)) throw new Error(`the stream ended before the chunks looked for: ${JSON.stringify(next)}`)
    chunks.push(next.chunk)
  }
  return chunks
}

/** True if `promise` is still unsettled after one turn of the (real) event loop. */
export async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending')
  return (await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))])) === marker
}

/** Moves the fake clock `ms` while `next` waits; the deadline must not have ended it (`why`). */
export async function advanceWhilePending(next: Promise<unknown>, ms: number, why: string): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms)
  expect(await pending(next), why).toBe(true)
}

/** Sends `piece` and moves the clock 60 ms, three times, while `next` waits: 180 ms, not ended. */
export async function keepAlivesFor180ms(hand: ByHand, piece: string, next: Promise<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await hand.send(piece)
    await vi.advanceTimersByTimeAsync(60)
  }
  expect(await pending(next), 'ended before idleTimeoutMs').toBe(true)
}
