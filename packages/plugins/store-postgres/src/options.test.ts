import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BosunError, createStore } from '@bosun/core'
import { validateConfig } from '@bosun/core/config'
import definition, { postgresStore } from './index.js'

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')
const secret = 'pa55-w0rd-never-shown'

describe('postgres store — options', () => {
  it('a config file with a password in the URL is refused like an API key, without showing it', async () => {
    const config = { model: 'scripted', store: ['store-postgres', { url: `postgres://bosun:${secret}@db.internal:5432/bosun` }] }
    const error = await validateConfig({ config: config as never, file: join(packageDir, 'bosun.config.json'), dir: packageDir }, { env: {} }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    expect((error as Error).message).toMatch(/\$\.store\[1\]\.url.*credential/)
    expect((error as Error).message).not.toContain(secret)
  })

  it('urlEnv must name a variable that is set', async () => {
    const config = { model: 'scripted', store: ['store-postgres', { urlEnv: 'BOSUN_PG_URL_NOT_SET' }] }
    const error = await validateConfig({ config: config as never, file: join(packageDir, 'bosun.config.json'), dir: packageDir }, { env: {} }).catch((e: unknown) => e)
    expect((error as Error).message).toContain('environment variable "BOSUN_PG_URL_NOT_SET" is not set')
    expect(() => postgresStore({ urlEnv: 'BOSUN_PG_URL_NOT_SET' })).toThrow(/BOSUN_PG_URL_NOT_SET named by "urlEnv" is not set/)
  })

  it('the schema takes exactly one of url and urlEnv, known keys, and sane numbers', async () => {
    const refused = async (options: unknown) => {
      const error = await createStore(definition, options).catch((e: unknown) => e)
      expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID'), JSON.stringify(options)).toBe(true)
    }
    await refused({})
    await refused({ url: 'postgres://h/db', urlEnv: 'X' })
    await refused({ url: 'mysql://h/db' })
    await refused({ url: 'postgres://h/db', poolSize: 0 })
    await refused({ url: 'postgres://h/db', leaseTtlMs: 10 })
    await refused({ url: 'postgres://h/db', schema: 'Bad-Name' })
    await refused({ url: 'postgres://h/db', password: 'x' })
    const store = await createStore(definition, { url: 'postgres://127.0.0.1:1/db', poolSize: 2, statementTimeoutMs: 500, leaseTtlMs: 3000, schema: 'mine' })
    expect(store.name).toBe('postgres')
    await store.close()
  })

  it('an unreachable database is a STORE error that names host and database, never the password', async () => {
    const store = postgresStore({ url: `postgres://bosun:${secret}@127.0.0.1:1/bosun` })
    const error = await store.list().catch((e: unknown) => e)
    expect(BosunError.is(error, 'STORE')).toBe(true)
    expect((error as Error).message).toContain('postgres://127.0.0.1:1/bosun')
    expect((error as Error).message).not.toContain(secret)
    expect(JSON.stringify((error as BosunError).details)).not.toContain(secret)
    await store.close()
  })
})
