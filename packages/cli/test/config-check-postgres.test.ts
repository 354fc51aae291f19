// bosun config check over a PostgreSQL store: the store was only made when a command used it, so a
// URL in the variable "urlEnv" names that the store refuses when it is made (a password with an
// unencoded "#") was reported "valid" here and refused by serve and run. config check now makes
// the store, without connecting, and closes it. A real PostgreSQL (the store's own test helper).
import { beforeAll, describe } from 'vitest'
import { available, usePostgres } from '../../plugins/store-postgres/src/testing/postgres.js'
import { bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)

const SECRET = 'not-shown-secret'
const project = (dir: string, options: Record<string, unknown> = {}) => writeProject(dir, { store: ['store-postgres', { urlEnv: 'BOSUN_PG_URL', ...options }] })

describe.skipIf(!available).concurrent('bosun config check over a PostgreSQL store', () => {
  const pg = usePostgres()

  it('config check reports a URL whose password holds an unencoded "#", without showing it', async ({ dir, expect }) => {
    await project(dir)
    const url = new URL(pg.url())
    const malformed = `postgres://${url.username}:ab#${SECRET}@${url.host}${url.pathname}`
    const result = await bosun(['config', 'check'], { cwd: dir, env: { BOSUN_PG_URL: malformed } })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('error INVALID_ARGUMENT: Invalid options for postgresStore():\n  - $.urlEnv: the URL in BOSUN_PG_URL is not a valid URL: if the password (or the user name) holds one of # / ? @ % or a space, percent-encode the password')
    expect(result.stderr).not.toContain(SECRET)
    expect(result.stderr).not.toContain('ab#')
  })

  it('config check makes the store without connecting: a valid URL passes, with nothing made in the database', async ({ dir, expect }) => {
    const schema = pg.schema()
    await project(dir, { schema })
    const result = await bosun(['config', 'check'], { cwd: dir, env: { BOSUN_PG_URL: pg.url() } })
    expect([result.code, result.stderr]).toEqual([0, ''])
    expect(result.stdout).toContain('✓ the config is valid')
    expect(await pg.sql(`SELECT to_regnamespace('"${schema}"') IS NULL AS absent`)).toEqual([{ absent: true }])
  })
})
