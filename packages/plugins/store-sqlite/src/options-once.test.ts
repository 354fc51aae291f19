// From a config file (createStore), the store's options are checked once: createStore resolves
// `file` against the config file's folder before it checks them, and sqliteStore() gets that very
// value (it checked the copy it was handed again before).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createStore, type StoreDefinition } from '@bosun/core'
import { countChecks, expectBadOptionsCheckedOnce } from '../../../core/src/testing/store-options-once.js'
import { sqliteStoreOptionsSchema } from './options.js'
import { header, tempDatabase } from './testing/temp.js'

const count = countChecks(sqliteStoreOptionsSchema)
const { default: definition, sqliteStore } = await import('./index.js')

let base: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir: base, cleanup } = await tempDatabase()))
afterEach(() => cleanup())

it('createStore checks the options once (twice before) and the database is in the config file\'s folder', async () => {
  count()
  const store = await createStore(definition as StoreDefinition, { file: 'db/sessions.sqlite', batchWindowMs: 0 }, { baseDir: base })
  expect(count()).toBe(1)
  await (await store.create(header('s'))).writer.close()
  await store.close()
  expect(existsSync(join(base, 'db', 'sessions.sqlite'))).toBe(true)
  await sqliteStore({ file: join(base, 'code.sqlite') }).close()
  expect(count()).toBe(1)
})

it('a bad option: the same line from code and from createStore, checked once', async () => {
  await expectBadOptionsCheckedOnce(definition as StoreDefinition, sqliteStore, 'sqliteStore()', [
    [{ file: '' }, '$.file: must not be empty (found "")'],
    [{ file: 7 }, '$.file: must be a string (found 7)'],
    [{ file: 'x', batchWindowMs: -1 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found -1)'],
  ], count, base)
})

it('a caller of the definition\'s create itself gets a relative file resolved against baseDir', async () => {
  const store = await definition.create({ file: 'direct.sqlite', batchWindowMs: 0 }, { baseDir: base })
  await (await store.create(header('d'))).writer.close()
  await store.close()
  expect(existsSync(join(base, 'direct.sqlite'))).toBe(true)
})
