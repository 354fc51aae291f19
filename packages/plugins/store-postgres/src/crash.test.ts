import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BosunError, createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { postgresStore } from './store.js'
import { available, until, usePostgres } from './testing/postgres.js'

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * A host in a child process (the built packages: `pnpm build` first): opens session `crash` on the
 * PostgreSQL store with a 1.5 s lease, queues two messages and streams a long answer to the first,
 * one character every 20 ms, until it is killed.
 */
const HOST = `
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { postgresStore } from '@bosun/plugin-store-postgres'
const store = postgresStore({ url: process.env.PG_URL, schema: process.env.SCHEMA, owner: 'doomed-host', leaseTtlMs: 1500 })
const agent = await createAgent({ model: scripted({ responses: [{ text: 'a long answer '.repeat(40), chunkSize: 1, delayMs: 20 }] }), store, sessionId: 'crash' })
agent.followup('first')
agent.followup('second')
setInterval(() => {}, 1000)
`

describe.skipIf(!available)('postgres store — a host killed mid-turn', () => {
  const pg = usePostgres()

  it('another host takes the session over at lease expiry, repairs the open turn and answers the queued message', async () => {
    const built = ['../../core/dist/index.js', '../../adapters/scripted/dist/index.js', 'dist/index.js'].map((path) => join(packageDir, path))
    for (const file of built) expect(existsSync(file), `${file} is missing: run "pnpm build" first`).toBe(true)
    const schema = pg.schema()
    const child = spawn(process.execPath, ['--input-type=module', '-e', HOST], { cwd: packageDir, env: { ...process.env, PG_URL: pg.url(), SCHEMA: schema }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    const chunks = async () => {
      if (child.exitCode !== null) throw new Error(`the host exited early: ${stderr}`)
      const rows = await pg.sql<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".session_events WHERE session_id = 'crash' AND type = 'assistant/chunk'`).catch(() => [{ n: 0 }])
      return rows[0]!.n >= 5
    }
    await until(chunks, 'the host to stream some of its answer', 60_000)
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')

    const store = postgresStore({ url: pg.url(), schema, owner: 'rescuer' })
    expect((await store.leaseHolder('crash'))?.owner).toBe('doomed-host')
    // Until the dead host's lease runs out on the database clock, the session stays its own.
    let agent: Awaited<ReturnType<typeof createAgent>> | undefined
    await until(async () => {
      try {
        agent = await createAgent({ model: scripted({ responses: [{ text: 'answer to second' }, { text: 'answer to third' }] }), store, sessionId: 'crash' })
        return true
      } catch (error) {
        if (BosunError.is(error, 'SESSION_LOCKED')) return false
        throw error
      }
    }, 'the dead host\'s lease to expire')
    expect(await store.leaseHolder('crash')).toMatchObject({ owner: 'rescuer', epoch: '2' })
    const events = agent!.session.events
    expect(events.map((e) => e.seq)).toEqual([...events.keys()])
    const tail = events.slice(-3).map((e) => [e.type, (e.data as { kind?: string; finish?: string; interrupted?: boolean }).interrupted ?? (e.data as { finish?: string }).finish ?? (e.data as { reason?: { kind: string } }).reason?.kind])
    expect(tail).toEqual([['assistant/message', true], ['step/end', 'error'], ['turn/end', 'interrupted']])

    agent!.followup('third')
    await agent!.whenIdle()
    const asked = agent!.session.events.filter((e) => e.type === 'user/message').map((e) => JSON.stringify(e.data))
    expect(asked.filter((text) => text.includes('second'))).toHaveLength(1)
    expect(asked.filter((text) => text.includes('third'))).toHaveLength(1)
    await agent!.close()
    const reopened = await store.read('crash')
    expect(reopened?.events).toEqual(agent!.session.events)
    await store.close()
  }, 120_000)
})
