// The kit's guarantees for any adapter, a third party's too: masking of a key cut anywhere,
// content deadlines, redirects refused, bodies capped. HTTP against real servers on 127.0.0.1.
import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { ModelError, type ModelChunk } from '../model.js'
import {
  errorFromResponse, excerpt, fetchWithoutRedirects, isContentChunk, maskSecret, MAX_ERROR_BODY_BYTES, readBodyText, redactSecret,
  withContentDeadline,
} from './index.js'

const KEY = 'sk-kit-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

describe('maskSecret, excerpt and redactSecret', () => {
  it('masks the whole key and any piece of 8+ characters from its start; shorter pieces stay', () => {
    expect(maskSecret(`a ${KEY} b ${KEY.slice(0, 20)}`, KEY)).toBe('a [redacted] b [redacted]')
    expect(maskSecret(`cut at ${KEY.slice(0, 8)}`, KEY)).toBe('cut at [redacted]')
    expect(maskSecret(`cut at ${KEY.slice(0, 7)}`, KEY)).toBe(`cut at ${KEY.slice(0, 7)}`)
    expect(maskSecret('sk-x', 'sk-x')).toBe('[redacted]')
    expect(maskSecret('no key here', undefined)).toBe('no key here')
  })

  it('excerpt masks before it cuts, at every position of the key', () => {
    for (let offset = 0; offset < 60; offset++) {
      const text = excerpt(`${'x'.repeat(offset)}${KEY}${'y'.repeat(50)}`, 50, KEY)
      expect(text, `offset ${offset}`).not.toMatch(/sk-|kit|ABC/)
    }
  })

  it('redactSecret catches a piece of the key that a cut elsewhere left, and drops the cause', () => {
    const cut = new ModelError('SERVER', `upstream said: ${KEY.slice(0, 30)}…`, { cause: new Error('inner') })
    const clean = redactSecret(cut, KEY)
    expect([clean.code, clean.message, clean.cause]).toEqual(['SERVER', 'upstream said: [redacted]…', undefined])
  })
})

describe('withContentDeadline', () => {
  async function* keepAlives(first: ModelChunk[] = []): AsyncGenerator<ModelChunk> {
    yield* first
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      yield { type: 'text-delta', text: '' }
      yield { type: 'usage', usage: { inputTokens: 1 } }
      yield { type: 'tool-call-delta', index: 0 }
    }
  }

  async function drain(source: AsyncIterable<ModelChunk>): Promise<{ seen: ModelChunk[]; error: unknown }> {
    const seen: ModelChunk[] = []
    try {
      for await (const chunk of source) seen.push(chunk)
      return { seen, error: undefined }
    } catch (error) {
      return { seen, error }
    }
  }

  it('content chunks are text, reasoning (or a signature), tool-call progress and the finish; nothing else', () => {
    expect(isContentChunk({ type: 'text-delta', text: 'a' })).toBe(true)
    expect(isContentChunk({ type: 'reasoning-delta', text: '', signature: 's' })).toBe(true)
    expect(isContentChunk({ type: 'tool-call-delta', index: 0, argumentsDelta: '{' })).toBe(true)
    expect(isContentChunk({ type: 'finish', reason: 'stop' })).toBe(true)
    expect(isContentChunk({ type: 'text-delta', text: '' })).toBe(false)
    expect(isContentChunk({ type: 'reasoning-delta', text: '' })).toBe(false)
    expect(isContentChunk({ type: 'usage', usage: {} })).toBe(false)
  })

  it('keep-alives pass through but do not hold the stream open: TIMEOUT after idleTimeoutMs', async () => {
    const { seen, error } = await drain(withContentDeadline(keepAlives([{ type: 'text-delta', text: 'hi' }]), { idleTimeoutMs: 100 }, 'The test server'))
    expect(seen[0]).toEqual({ type: 'text-delta', text: 'hi' })
    expect(seen.length).toBeGreaterThan(1)
    expect(BosunError.is(error, 'TIMEOUT') && (error as ModelError).retryable).toBe(true)
    expect((error as Error).message).toMatch(/^The test server sent no content \(text, reasoning or a tool call\) for 100 ms; keep-alives do not count/)
  })

  it('timeoutMs bounds a stream that keeps making content', async () => {
    async function* chatty(): AsyncGenerator<ModelChunk> {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 5))
        yield { type: 'text-delta', text: 'more' }
      }
    }
    const { error } = await drain(withContentDeadline(chatty(), { idleTimeoutMs: 60_000, timeoutMs: 100 }, 'The test server'))
    expect((error as Error).message).toBe('The test server did not complete the response within timeoutMs (100 ms).')
  })

  it('a stream that finishes is passed through whole', async () => {
    async function* whole(): AsyncGenerator<ModelChunk> {
      yield { type: 'text-delta', text: 'a' }
      yield { type: 'finish', reason: 'stop' }
    }
    expect(await drain(withContentDeadline(whole(), { idleTimeoutMs: 1000, timeoutMs: 1000 }, 'x'))).toEqual({
      seen: [{ type: 'text-delta', text: 'a' }, { type: 'finish', reason: 'stop' }],
      error: undefined,
    })
  })
})

describe('fetchWithoutRedirects and capped bodies', () => {
  const servers: ReturnType<typeof createServer>[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
  async function serve(listener: RequestListener): Promise<string> {
    const server = createServer(listener)
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  it('refuses a redirect to another origin: nothing reaches it, the error names its origin only', async () => {
    const reached: string[] = []
    const other = await serve((req, res) => {
      reached.push(req.url ?? '')
      res.end()
    })
    const origin = await serve((_, res) => {
      res.writeHead(308, { location: `${other}/steal?token=abc` })
      res.end()
    })
    const error = await fetchWithoutRedirects(`${origin}/v1`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{}' }).catch((e: unknown) => e)
    expect(reached).toEqual([])
    expect(error).toMatchObject({ code: 'PROVIDER_REDIRECT', status: 308, retryable: false })
    expect((error as Error).message).toContain(`redirecting to ${other}.`)
    expect((error as Error).message).not.toMatch(/steal|token/)
  })

  it('names no origin it cannot tell: an unparsable location, a data: URL', async () => {
    const origin = await serve((req, res) => {
      res.writeHead(302, { location: req.url === '/bad' ? 'http://[oops' : 'data:text/plain,sk-kit-secret' })
      res.end()
    })
    expect(await fetchWithoutRedirects(`${origin}/bad`).catch((e: Error) => e.message)).toContain('redirecting to an unparsable location.')
    const data = await fetchWithoutRedirects(`${origin}/data`).catch((e: Error) => e.message)
    expect(data).toContain('redirecting to a location without an origin.')
    expect(data).not.toContain('sk-kit')
  })

  it('passes other answers; a failed one comes with its body capped', async () => {
    const origin = await serve((req, res) => {
      if (req.url === '/ok') return res.end('fine')
      res.writeHead(500, { 'content-encoding': 'gzip' })
      res.end(gzipSync(Buffer.alloc(8 * MAX_ERROR_BODY_BYTES)))
    })
    expect(await (await fetchWithoutRedirects(`${origin}/ok`)).text()).toBe('fine')
    const failed = await fetchWithoutRedirects(`${origin}/bomb`)
    expect(await failed.text().catch((e: unknown) => e)).toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 500, retryable: false })
  })

  it('readBodyText and errorFromResponse stop at the cap with RESPONSE_TOO_LARGE; the key is masked in what they quote', async () => {
    const origin = await serve((req, res) => {
      res.writeHead(req.url === '/big' ? 200 : 400, { 'content-encoding': 'gzip' })
      res.end(gzipSync(req.url === '/big' ? Buffer.alloc(4096) : Buffer.from(`${'x'.repeat(290)}${KEY}`)))
    })
    const big = await readBodyText(await fetch(`${origin}/big`), 1024, 'The test body').catch((e: unknown) => e)
    expect(big).toMatchObject({ code: 'RESPONSE_TOO_LARGE', message: expect.stringMatching(/^The test body is larger than 1 KiB/) })
    const echoed = await errorFromResponse('The test server', await fetch(`${origin}/echo`), { secret: KEY })
    expect(echoed.code).toBe('INVALID_REQUEST')
    expect(echoed.message).not.toContain(KEY.slice(0, 8))
  })
})
