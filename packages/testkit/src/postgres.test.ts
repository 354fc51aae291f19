import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { findPostgres, postgresAvailable, startPostgres } from './postgres.js'

const run = promisify(execFile)
const source = findPostgres()

describe.skipIf(!postgresAvailable())('startPostgres', () => {
  it('finds BOSUN_PG_URL first, then binaries, and says what to install when there is neither', () => {
    expect(findPostgres({ BOSUN_PG_URL: 'postgres://127.0.0.1/x', PATH: '' })).toEqual({ kind: 'url', variable: 'BOSUN_PG_URL' })
    expect(findPostgres({ PATH: '/nonexistent' }, { systemFolders: false })).toMatchObject({ kind: 'none', reason: expect.stringContaining('apt-get install postgresql') })
    expect(() => postgresAvailable({ CI: 'true', PATH: '/nonexistent' }, { systemFolders: false })).toThrow(/cannot run on CI: no PostgreSQL found/)
    expect(postgresAvailable({ PATH: '/nonexistent' }, { systemFolders: false })).toBe(false)
    if (source.kind === 'binaries') expect(findPostgres({ PATH: source.bin }, { systemFolders: false })).toEqual(source)
  })

  it('starts a server that answers queries, and stop() removes the throwaway cluster', async () => {
    const pg = await startPostgres()
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
})

