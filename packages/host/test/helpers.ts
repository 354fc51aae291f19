import { mkdtemp, rm } from 'node:fs/promises'
import { afterEach, beforeEach, vi } from 'vitest'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent, definePlugin, type Plugin, type Store, type Tool } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type CreateHostOptions, type Host } from '../src/index.js'
import { validateBody } from '../src/schemas.js'

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-host-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** A fresh temp dir for each test of the file; hosts and servers pushed to `closing` are closed after it. */
export function perTest(): { readonly dir: string; closing: { close(): Promise<void> }[] } {
  const state = { dir: '', closing: [] as { close(): Promise<void> }[], cleanup: async (): Promise<void> => {} }
  beforeEach(async () => {
    ;({ dir: state.dir, cleanup: state.cleanup } = await tempDir())
  })
  afterEach(async () => {
    for (const item of state.closing.splice(0).reverse()) await item.close()
    await state.cleanup()
  })
  return state
}

/** A host over a JSONL store in `dir`; each session's model replays `responses()` (then echoes). */
export function makeHost(dir: string, responses: () => ScriptedResponse[] = () => [], extra: Partial<CreateHostOptions> = {}, plugins: Plugin[] = []): { host: Host; store: Store } {
  const store = jsonlStore({ dir })
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: responses() }), store, sessionId, plugins }),
    limits: { keepAliveMs: 200, ...(extra.limits ?? {}) },
    ...extra,
  })
  return { host, store }
}

/**
 * A plugin that holds every step at `agent/pre-step` until the test opens it: a turn stays
 * running (and what is queued stays queued) for exactly as long as the test needs, however fast
 * or slow the machine. An abort still ends a held turn (core races pre-step against it).
 */
export function stepGate(): { plugin: Plugin; open(): void; readonly waiting: number } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  let waiting = 0
  const plugin = definePlugin({
    name: 'step-gate',
    setup(ctx) {
      ctx.hooks.preStep.tapPromise('step-gate', async (decision) => {
        waiting++
        await opened
        waiting--
        return decision
      })
    },
  })
  return { plugin, open, get waiting() { return waiting } }
}

/**
 * Every line the host logs from now on (it logs through console.error, which this silences), an
 * error printed with its stack as the console would: a test can see that none is. Undone by
 * `vi.restoreAllMocks()`.
 */
export function loggedLines(): string[] {
  const lines: string[] = []
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    lines.push(args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(' '))
  })
  return lines
}

const BASE = 'http://127.0.0.1'

export function req(host: Host, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const init: RequestInit = { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body)
  return host.fetch(new Request(`${BASE}${path}`, init))
}

export async function json<T = any>(response: Response | Promise<Response>): Promise<T> {
  return (await (await response).json()) as T
}

/** Polls `condition` until it holds (no fixed sleeps); fails after `timeoutMs`, saying `what` was missing (a function: described at the deadline). */
export async function waitFor<T>(condition: () => T | Promise<T>, timeoutMs = 15_000, what: string | (() => string) = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await condition()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

export interface Frame { event: string; id?: string; data?: any; comment?: string }

/** Reads SSE frames from a fetch response body. */
export class SseReader {
  readonly frames: Frame[] = []
  #buffer = ''
  #done = false
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>
  readonly #decoder = new TextDecoder()
  constructor(response: Response) {
    this.#reader = response.body!.getReader()
  }

  get done(): boolean {
    return this.#done
  }

  /** Reads until `predicate` holds over the frames read so far. */
  async until(predicate: (frames: Frame[]) => boolean, timeoutMs = 15_000): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs
    while (!predicate(this.frames)) {
      if (this.#done) throw new Error('stream ended before the condition held')
      if (Date.now() > deadline) throw new Error('timed out reading the stream')
      let timer: ReturnType<typeof setTimeout> | undefined
      const result = await Promise.race([
        this.#reader.read(),
        new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), Math.max(1, deadline - Date.now())) }),
      ])
      clearTimeout(timer)
      if (result === 'timeout') continue
      if (result.done) {
        this.#done = true
        continue
      }
      this.#buffer += this.#decoder.decode(result.value, { stream: true })
      let index: number
      while ((index = this.#buffer.indexOf('\n\n')) !== -1) {
        const raw = this.#buffer.slice(0, index)
        this.#buffer = this.#buffer.slice(index + 2)
        const frame: Frame = { event: 'message' }
        for (const line of raw.split('\n')) {
          if (line.startsWith(':')) frame.comment = line.slice(1).trim()
          else if (line.startsWith('event: ')) frame.event = line.slice(7)
          else if (line.startsWith('id: ')) frame.id = line.slice(4)
          else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6))
        }
        if (frame.comment !== undefined && raw.split('\n').every((l) => l.startsWith(':') || l === '')) frame.event = 'comment'
        this.frames.push(frame)
      }
    }
    return this.frames
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {})
  }
}

export function eventSeqs(frames: Frame[]): number[] {
  return frames.filter((f) => f.event === 'session.event').map((f) => Number(f.id))
}

/** A tool that holds its turn between steps until the test releases it (or the turn is aborted). */
export function holdTool() {
  let release!: () => void
  let held = new Promise<void>((r) => { release = r })
  const tool: Tool = {
    name: 'hold',
    description: 'Waits for the test.',
    parameters: { type: 'object', properties: {} },
    async execute(_args, ctx) {
      await Promise.race([held, new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }))])
      held = new Promise<void>((r) => { release = r })
      return 'held'
    },
  }
  return { tool, release: () => release() }
}

/** What `validateBody` refuses `body` with (its message and details); throws when the body is accepted. */
export function bodyRefusal(name: Parameters<typeof validateBody>[0], body: unknown): { message: string; details: any } {
  try {
    validateBody(name, body)
  } catch (error) {
    return { message: (error as Error).message, details: (error as { details: unknown }).details }
  }
  throw new Error('the body was accepted')
}
