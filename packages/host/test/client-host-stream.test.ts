import { afterEach, describe, expect, it } from 'vitest'
import { createClient, HostClientError, type HostStreamFrame, type SessionListItem } from '../src/client.js'
import { listen, type RunningServer } from '../src/index.js'
import { makeHost, perTest, tempDir } from './helpers.js'

const token = 'h'.repeat(40)
const state = perTest()
const extra: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of extra.splice(0)) await cleanup()
})

async function serve(dir: string, responses = () => [] as { text: string; chunkSize?: number; delayMs?: number }[]): Promise<{ server: RunningServer; host: ReturnType<typeof makeHost>['host'] }> {
  const { host, store } = makeHost(dir, responses, { auth: { token } })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
  // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
  state.closing.push(store, host, server)
  return { server, host }
}

/** Reads the host stream into `frames` until `done(frames)` holds, then stops it. */
async function readUntil(stream: (signal: AbortSignal) => AsyncIterable<HostStreamFrame>, done: (frames: HostStreamFrame[]) => boolean, onFrame?: (frame: HostStreamFrame, frames: HostStreamFrame[]) => Promise<void> | void): Promise<HostStreamFrame[]> {
  const controller = new AbortController()
  const frames: HostStreamFrame[] = []
  for await (const frame of stream(controller.signal)) {
    frames.push(frame)
    await onFrame?.(frame, frames)
    if (done(frames)) controller.abort()
  }
  return frames
}

const statusOf = (frames: HostStreamFrame[], id: string): SessionListItem[] => frames.flatMap((f) => (f.event === 'session.status' && f.data.id === id ? [f.data] : []))

describe('client.hostStream()', () => {
  it('starts with every session (a cold one listed from its stored log, not resumed), then added and status frames with the last activity', async () => {
    // A session written by an earlier host, then a fresh host over the same store: the session is cold.
    const first = await serve(state.dir)
    const seed = createClient({ baseUrl: first.server.url, token })
    await seed.createSession('cold')
    await seed.send('cold', { content: 'before the restart' }, { waitDurable: true })
    await until(async () => (await seed.getSession('cold')).status === 'idle')
    const stored = (await seed.events('cold', { limit: 1000 })).events
    await first.server.close()

    const { server, host } = await serve(state.dir, () => [{ text: 'x'.repeat(40), chunkSize: 4, delayMs: 5 }])
    const client = createClient({ baseUrl: server.url, token })
    let created = false
    const frames = await readUntil((signal) => client.hostStream({ signal }), (f) => statusOf(f, 'fresh').some((s) => s.status === 'idle' && s.lastSeq > 3), async (frame) => {
      if (frame.event === 'hello' && !created) {
        created = true
        await client.createSession('fresh')
        await client.send('fresh', { content: 'go' })
      }
    })
    const hello = frames[0]!
    expect(hello.event).toBe('hello')
    const cold = (hello as Extract<HostStreamFrame, { event: 'hello' }>).data.sessions.find((s) => s.id === 'cold')!
    expect(cold).toMatchObject({ loaded: false, status: 'idle', lastSeq: stored.length - 1, lastEventAt: stored.at(-1)!.time, queue: { 'next-turn': 0, 'next-step': 0 } })
    expect(await host.sessions.peek('cold')).toBeUndefined() // listing and streaming never resumed it
    expect(frames.some((f) => f.event === 'session.added' && f.data.id === 'fresh')).toBe(true)
    const ended = statusOf(frames, 'fresh').at(-1)!
    const log = (await client.events('fresh', { limit: 1000 })).events
    expect(ended).toMatchObject({ loaded: true, status: 'idle', createdAt: expect.any(Number) })
    expect(ended.lastEventAt).toBe(log.find((e) => e.seq === ended.lastSeq)!.time)
    expect(statusOf(frames, 'fresh').some((s) => s.status === 'running')).toBe(true)
    // The list answers the same shape.
    const listed = (await client.listSessions()).find((s) => s.id === 'fresh')!
    expect(listed.lastEventAt).toBe(log.at(-1)!.time)
  })

  it('names a fork\'s parent in its summary, and an empty session has no last activity yet', async () => {
    const { server } = await serve(state.dir)
    const client = createClient({ baseUrl: server.url, token })
    await client.createSession('origin')
    await client.send('origin', { content: 'one' }, { waitDurable: true })
    await until(async () => (await client.getSession('origin')).status === 'idle')
    await client.fork('origin', { id: 'branch' })
    await client.createSession('empty')
    const list = await client.listSessions()
    expect(list.find((s) => s.id === 'branch')).toMatchObject({ parent: 'origin' })
    expect(list.find((s) => s.id === 'origin')!.parent).toBeUndefined()
    expect(list.find((s) => s.id === 'empty')).toMatchObject({ lastSeq: -1, lastEventAt: null })
  })

  it('after a dropped connection starts again with a new hello: the whole list as the host has it now', async () => {
    const a = await serve(state.dir)
    const other = await tempDir()
    extra.push(other.cleanup)
    const b = await serve(other.dir)
    await createClient({ baseUrl: a.server.url, token }).createSession('on-a')
    await createClient({ baseUrl: b.server.url, token }).createSession('on-b')
    let target = a.server.url
    const streams: string[] = []
    const routed: typeof fetch = async (input, init) => {
      const url = new URL(String(input))
      if (url.pathname === '/v1/stream') streams.push(target)
      return fetch(`${target}${url.pathname}${url.search}`, init)
    }
    const client = createClient({ baseUrl: 'http://bosun.test', token, fetch: routed })
    const frames = await readUntil((signal) => client.hostStream({ signal, retry: { initialMs: 5, maxMs: 20 } }), (f) => f.filter((x) => x.event === 'hello').length === 2, async (frame, all) => {
      if (frame.event === 'hello' && all.length === 1) {
        // The host goes away: its stream ends, the next attempts reach the other host.
        target = b.server.url
        await a.server.close()
      }
    })
    const hellos = frames.filter((f): f is Extract<HostStreamFrame, { event: 'hello' }> => f.event === 'hello')
    expect(hellos.map((h) => h.data.sessions.map((s) => s.id))).toEqual([['on-a'], ['on-b']])
    expect(streams.length).toBeGreaterThanOrEqual(2)
  })

  it('throws the host\'s refusal (4xx) instead of retrying', async () => {
    const { server } = await serve(state.dir)
    const anonymous = createClient({ baseUrl: server.url })
    const error = await anonymous.hostStream()[Symbol.asyncIterator]().next().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HostClientError)
    expect(error).toMatchObject({ status: 401, code: 'not-authorized' })
  })
})

describe('client.login()', () => {
  it('exchanges the token for the login cookie; a wrong token is not-authorized', async () => {
    const { server } = await serve(state.dir)
    // A cookie jar, as a browser keeps one: the client itself never holds the cookie or the token.
    let cookie: string | undefined
    const jarFetch: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers)
      if (cookie !== undefined) headers.set('cookie', cookie)
      const response = await fetch(input, { ...init, headers })
      const set = response.headers.get('set-cookie')
      if (set !== null) cookie = set.split(';')[0]
      return response
    }
    const page = createClient({ baseUrl: server.url, fetch: jarFetch })
    await expect(page.listSessions()).rejects.toMatchObject({ status: 401, code: 'not-authorized' })
    await expect(page.login('w'.repeat(40))).rejects.toMatchObject({ status: 401, code: 'not-authorized' })
    expect(await page.login(token)).toMatchObject({ loggedIn: true, expiresAt: expect.any(Number) })
    expect(await page.listSessions()).toEqual([])
    const frames = await readUntil((signal) => page.hostStream({ signal }), (f) => f.length === 1)
    expect(frames[0]).toMatchObject({ event: 'hello', data: { sessions: [] } })
    expect(await page.logout()).toEqual({ loggedIn: false })
  })
})

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
