// From a config file (createStore), the store's options are checked once: createStore resolves
// `dir` against the config file's folder before it checks them, and jsonlStore() gets that very
// value (it checked the copy it was handed again before).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createStore, type StoreDefinition } from '@bosun/core'
import { countChecks, expectBadOptionsCheckedOnce } from '../../../core/src/testing/store-options-once.js'
import { jsonlStoreOptionsSchema } from './options.js'
import { header } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

const count = countChecks(jsonlStoreOptionsSchema)
const { default: definition, jsonlStore } = await import('./index.js')

let base: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir: base, cleanup } = await tempDir()))
afterEach(() => cleanup())

it('createStore checks the options once (twice before) and the store writes under the config file\'s folder', async () => {
  count()
  const store = await createStore(definition as StoreDefinition, { dir: 'sessions', batchWindowMs: 0 }, { baseDir: base })
  expect(count()).toBe(1)
  await (await store.create(header('s'))).writer.close()
  await store.close()
  expect(existsSync(join(base, 'sessions', 's.jsonl'))).toBe(true)
  await jsonlStore({ dir: join(base, 'code') }).close()
  expect(count()).toBe(1)
})

it('a bad option: the same line from code and from createStore, checked once', async () => {
  await expectBadOptionsCheckedOnce(definition as StoreDefinition, jsonlStore, 'jsonlStore()', [
    [{ dir: '' }, '$.dir: must not be empty (found "")'],
    [{ dir: 7 }, '$.dir: must be a string (found 7)'],
    [{ dir: 'x', batchWindowMs: -1 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found -1)'],
  ], count, base)
})

it('a caller of the definition\'s create itself gets a relative dir resolved against baseDir', async () => {
  const store = await definition.create({ dir: 'direct', batchWindowMs: 0 }, { baseDir: base })
  await (await store.create(header('d'))).writer.close()
  await store.close()
  expect(existsSync(join(base, 'direct', 'd.jsonl'))).toBe(true)
})
