// StoreDefinition.paths: createStore resolves those options against baseDir before it checks them,
// and hands `create` the very value it checked.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import type { JsonSchema } from '../schema.js'
import { createStore, defineStore, resolveStorePaths } from './define-store.js'
import { memoryStore } from './memory.js'

const schema: JsonSchema = { type: 'object', properties: { dir: { type: 'string', minLength: 1 }, n: { type: 'integer' } }, additionalProperties: false }

describe('defineStore paths', () => {
  it('a relative path is resolved against baseDir, an absolute one is kept; other options are untouched', async () => {
    const seen: unknown[] = []
    const store = defineStore({ name: 'seeing', schema, paths: ['dir'], create: (options) => (seen.push(options), memoryStore()) })
    await (await createStore(store, { dir: 'a/b', n: 1 }, { baseDir: '/project' })).close()
    await (await createStore(store, { dir: '/abs' }, { baseDir: '/project' })).close()
    await (await createStore(store, { n: 2 }, { baseDir: '/project' })).close()
    expect(seen).toEqual([{ dir: resolve('/project', 'a/b'), n: 1 }, { dir: resolve('/abs') }, { n: 2 }])
  })

  it('a path the schema refuses is shown as given', async () => {
    const store = defineStore({ name: 'seeing', schema, paths: ['dir'], create: () => memoryStore() })
    for (const [dir, found] of [['', '""'], [7, '7']] as const) {
      const error = await createStore(store, { dir }, { baseDir: '/project' }).then(() => undefined, (e: unknown) => e as BosunError)
      expect(error?.message).toContain(`$.dir: must ${dir === '' ? 'not be empty' : 'be a string'} (found ${found})`)
    }
  })

  it('paths that are not a list of option names are the plugin\'s mistake', () => {
    expect(() => defineStore({ name: 'bad', paths: 'dir' as never, create: () => memoryStore() })).toThrow(expect.objectContaining({ code: 'INVALID_PLUGIN', message: 'Store "bad": "paths" must be a list of option names, e.g. [\'dir\'].' }))
  })
})

describe('resolveStorePaths', () => {
  it('gives the very object back when nothing changes (absolute paths, no paths), a copy when a path is resolved', () => {
    const absolute = { dir: resolve('/abs'), n: 1 }
    expect(resolveStorePaths(['dir'], absolute, '/project')).toBe(absolute)
    const none = { n: 1 }
    expect(resolveStorePaths(['dir'], none, '/project')).toBe(none)
    const relative = { dir: 'a', n: 1 }
    const resolved = resolveStorePaths(['dir'], relative, '/project')
    expect(resolved).toEqual({ dir: resolve('/project', 'a'), n: 1 })
    expect(relative).toEqual({ dir: 'a', n: 1 })
  })
})
