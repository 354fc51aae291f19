// A registered secret (an `…Env` variable's value, an adapter's key) never reaches a client's
// error answer nor the host's log, whatever its shape: an agent factory's error quoting a
// word-like key is answered and logged with the key masked.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BosunError, registerSecret, type Store, type StoredSession } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen } from '../src/index.js'
import { perTest } from './helpers.js'

const t = perTest()
const KEY = 'my-gateway-secret'

afterEach(() => {
  vi.restoreAllMocks()
})

async function failingHost(error: () => Error): Promise<string> {
  registerSecret(KEY)
  const host = createHost({ store: jsonlStore({ dir: t.dir }), agentFactory: () => Promise.reject(error()) })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  t.closing.push(server)
  return server.url
}

describe('the host masks registered secrets', () => {
  it('in an error answer', async () => {
    const url = await failingHost(() => new BosunError('INVALID_ARGUMENT', `the gateway refused the token ${KEY}`))
    const response = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    const text = await response.text()
    expect(response.status).toBe(400)
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid-request', message: 'the gateway refused the token [redacted]' } })
    expect(text).not.toContain(KEY)
  })

  it("in the host's log of a failed request", async () => {
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    const url = await failingHost(() => new Error(`the gateway refused the token ${KEY}`))
    const response = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(response.status).toBe(500)
    expect(await response.text()).not.toContain(KEY)
    expect(logged.join('\n')).toContain('the gateway refused the token [redacted]')
    expect(logged.join('\n')).not.toContain(KEY)
  })

  it('in the log of an idle session whose close fails', async () => {
    registerSecret(KEY)
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    // A store whose session writer fails to close, quoting the key (a database refusing a credential).
    const base = jsonlStore({ dir: t.dir })
    const failingClose = (stored: StoredSession): StoredSession => {
      const writer = stored.writer
      return {
        ...stored,
        writer: {
          append: (event) => writer.append(event),
          flush: () => writer.flush(),
          close: async () => {
            await writer.close()
            throw new Error(`the database refused the password ${KEY}`)
          },
        },
      }
    }
    const overrides: Partial<Store> = {
      create: async (header, seed) => failingClose(await base.create(header, seed)),
      open: async (id) => {
        const stored = await base.open(id)
        return stored && failingClose(stored)
      },
    }
    const store = new Proxy(base, {
      get: (target, key) => {
        const value = (overrides as Record<PropertyKey, unknown>)[key] ?? Reflect.get(target, key, target)
        return typeof value === 'function' && !(key in overrides) ? value.bind(target) : value
      },
    }) as Store
    const host = createHost({ store, agent: { model: scripted({ responses: [] }) }, limits: { idleMs: 20 } })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(server)
    const response = await fetch(`${server.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(response.status).toBe(201)
    // Idle past idleMs, the session is retired: its close fails, and the host logs that.
    await vi.waitFor(() => expect(logged.join('\n')).toContain('the database refused the password'), { timeout: 15_000, interval: 20 })
    expect(logged.join('\n')).toContain('[redacted]')
    expect(logged.join('\n')).not.toContain(KEY)
  })

  it('in every line the host logs: its sources write to the log only through logHost', () => {
    // host-log.ts masks what it writes; a console call anywhere else could print an error whole.
    const root = join(import.meta.dirname, '..', 'src')
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'host-log.ts')
    const offenders = files.filter((file) => /\bconsole\.(?:error|warn|log|info|debug)\s*\(/.test(readFileSync(join(root, file), 'utf8')))
    expect(offenders).toEqual([])
  })
})
