import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BosunError, createStore } from '@bosun/core'
import { validateConfig } from '@bosun/core/config'
import { expectCodeLines, expectConfigLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'
import definition, { postgresStore } from './index.js'
import { resolveOptions } from './options.js'

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

  // Each rule is the schema's (postgresStoreOptionsSchema): the same line from code and from a config file.
  const cases: OptionsCase[] = [
    [{}, '$: must be an object with exactly one of "url" and "urlEnv" (found an object)'],
    [{ url: 'postgres://h/db', urlEnv: 'X' }, '$: must be an object with exactly one of "url" and "urlEnv" (found an object)'],
    // The URL is never shown (it may hold a password: from code it may, and not always as user:password@).
    [{ url: 'mysql://h/db' }, '$.url: must be a URL that starts with postgres:// or postgresql:// (found a string not shown: under this key it could be a credential)'],
    [{ url: 'host=db user=bosun password=hunter2' }, '$.url: must be a URL that starts with postgres:// or postgresql:// (found a string not shown: under this key it could be a credential)'],
    [{ url: 5432 }, '$.url: must be a URL that starts with postgres:// or postgresql:// (found a number not shown: under this key it could be a credential)'],
    [{ urlEnv: 'not a name' }, '$.urlEnv: must be the name of an environment variable (letters, digits and "_"), like "BOSUN_PG_URL" (found a string not shown: under this key it could be a credential)'],
    [{ url: 'postgres://h/db', schema: 'Bad-Name' }, '$.schema: must be a lower-case SQL identifier of at most 48 characters (letters, digits and "_", not starting with a digit) (found "Bad-Name")'],
    [{ url: 'postgres://h/db', poolSize: 0 }, '$.poolSize: must be an integer from 1 to 1000 (found 0)'],
    [{ url: 'postgres://h/db', poolSize: 5000 }, '$.poolSize: must be an integer from 1 to 1000 (found 5000)'],
    [{ url: 'postgres://h/db', statementTimeoutMs: -1 }, '$.statementTimeoutMs: must be an integer from 0 to 2147483647 (found -1)'],
    [{ url: 'postgres://h/db', leaseTtlMs: 10 }, '$.leaseTtlMs: must be an integer from 300 to 2147483647 (found 10)'],
    // A timer's longest wait (statement_timeout's too): Node fires a longer one after 1 ms — a lease renewed every millisecond.
    [{ url: 'postgres://h/db', leaseTtlMs: 1e300 }, '$.leaseTtlMs: must be an integer from 300 to 2147483647 (found 1e+300)'],
    [{ url: 'postgres://h/db', statementTimeoutMs: 2 ** 31 }, '$.statementTimeoutMs: must be an integer from 0 to 2147483647 (found 2147483648)'],
    [{ url: 'postgres://h/db', batchWindowMs: 2 ** 31 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found 2147483648)'],
    [{ url: 'postgres://h/db', batchWindowMs: 1.5 }, '$.batchWindowMs: must be an integer (found 1.5)'],
    [{ url: 'postgres://h/db', owner: '' }, '$.owner: must not be empty (found "")'],
    [{ url: 'postgres://h/db', owner: 'o'.repeat(201) }, `$.owner: must be at most 200 characters long (found "${'o'.repeat(40)}…")`],
    [{ url: 'postgres://h/db', pool: 2 }, '$.pool: unknown key "pool" — did you mean "poolSize"?'],
  ]

  it('postgresStore() checks its options against the schema: every problem, in the words of the schema', () => {
    expectCodeLines(postgresStore, 'postgresStore()', cases)
    // A connection string given for the options (postgresStore(process.env.DATABASE_URL)): its password never shown.
    expect(() => postgresStore('host=db user=bosun password=hunter2' as never)).toThrow('$: must be an object with exactly one of "url" and "urlEnv" (found a string that looks like a credential, not shown')
    expect(() => postgresStore('postgres://h/db' as never)).toThrow(expect.objectContaining({ message: 'Invalid options for postgresStore():\n  - $: must be an object with exactly one of "url" and "urlEnv" (found "postgres://h/db")' }))
    // JSON cannot say Infinity, YAML can (.inf): the schema refuses it either way.
    expect(() => postgresStore({ url: 'postgres://h/db', leaseTtlMs: Number.POSITIVE_INFINITY })).toThrow('$.leaseTtlMs: must be an integer (found Infinity)')
  })

  it('a config file gets the same line for each rule, under the store entry\'s path', async () => {
    // A config's …Env value is the config loader's to check first (for every entry): see below.
    await expectConfigLines(definition, cases.filter(([options]) => (options as { urlEnv?: string }).urlEnv !== 'not a name'))
    const config = { model: 'scripted', store: [definition, { urlEnv: 'not a name' }] }
    const error = await validateConfig({ config: config as never, file: join(packageDir, 'bosun.config.ts'), dir: packageDir }, { env: {} }).catch((e: unknown) => e)
    expect((error as Error).message).toContain('  - $.store[1].urlEnv (store "store-postgres"): must name an environment variable')
  })

  it('a URL in the variable urlEnv names must be a PostgreSQL URL, not shown', () => {
    const password = 'pa55-in-env'
    const error = (() => {
      try {
        resolveOptions({ urlEnv: 'BOSUN_PG_URL' }, { BOSUN_PG_URL: `mysql://bosun:${password}@db/bosun` })
      } catch (e) {
        return e as Error
      }
      return undefined
    })()
    expect(error?.message).toBe('Invalid options for postgresStore():\n  - $.urlEnv: the URL in BOSUN_PG_URL must start with postgres:// or postgresql:// (it is not shown, as it may hold a password)')
    expect(resolveOptions({ urlEnv: 'BOSUN_PG_URL' }, { BOSUN_PG_URL: ' postgres://h/db ' }).url).toBe('postgres://h/db')
  })

  // A password with a character a URL gives a meaning to, not percent-encoded: the URL does not
  // parse, or parses into another host — part of the password, which every connection error showed.
  const unencoded = [
    { what: 'a "#"', url: 'postgres://bosun:p@Qx7k#W0rdZ@127.0.0.1:5432/app', shown: ['Qx7k', 'W0rdZ'], says: 'holds a "#", which ends a URL' },
    { what: 'a "/"', url: 'postgres://bosun:Qx7k/W0rdZ@127.0.0.1:5432/app', shown: ['Qx7k', 'W0rdZ'], says: 'is not a valid URL' },
    { what: 'a "?" after digits', url: 'postgres://bosun:8531?W0rdZ@127.0.0.1:5432/app', shown: ['8531', 'W0rdZ'], says: 'has an "@" after its host' },
    { what: 'a "/" after digits', url: 'postgres://bosun:8531/W0rdZ@127.0.0.1:5432/app', shown: ['8531', 'W0rdZ'], says: 'has an "@" after its host' },
  ]
  for (const { what, url, shown, says } of unencoded) {
    it(`a password with ${what} not percent-encoded is refused before any connection, saying to encode it, not shown`, () => {
      const messages = [
        (() => { try { resolveOptions({ urlEnv: 'BOSUN_PG_URL' }, { BOSUN_PG_URL: url }) } catch (e) { return `${(e as Error).message}` } })(),
        (() => { try { resolveOptions({ url }) } catch (e) { return `${(e as Error).message}` } })(),
      ]
      expect(messages[0]).toContain(`  - $.urlEnv: the URL in BOSUN_PG_URL ${says}`)
      expect(messages[1]).toContain(`  - $.url: the URL ${says}`)
      for (const message of messages) {
        expect(message).toContain('percent-encode the password (encodeURIComponent')
        for (const part of shown) expect(message).not.toContain(part)
      }
    })
  }

  it('URLs node-postgres reads as written pass: encoded passwords, no host, a query value with an "@"', () => {
    for (const url of [
      `postgres://bosun:${encodeURIComponent('p@ss#w/rd?')}@127.0.0.1:5432/app`,
      'postgres://bosun:p@ss@127.0.0.1:5432/app', // the last "@" ends the user part
      'postgres://bosun:pass word%zz@127.0.0.1/app', // a space and a stray "%" are encoded first
      'postgres://bosun:pw@/app',
      'postgresql://bosun@[::1]:5432/app?sslmode=require&user=bosun@server',
      'postgres:///app',
      'postgres://bosun:pw@127.0.0.1:5432/my@db', // a database name with an "@" (R12), after a user part
    ]) expect(resolveOptions({ urlEnv: 'BOSUN_PG_URL' }, { BOSUN_PG_URL: url }).url, url).toBe(url)
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
