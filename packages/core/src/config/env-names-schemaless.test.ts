// A plugin or store declared without an options schema is checked by no schema — but an `…Env`
// option still names a variable, never holds the key: a key pasted there from code is refused
// before setup (or create) can quote it in "variable … is not set", as for one with a schema.
import { scripted } from '@bosun/adapter-scripted'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../create-agent.js'
import { BosunError, ErrorCodes } from '../errors.js'
import { definePlugin } from '../plugin.js'
import { createStore, defineStore } from '../store/define-store.js'
import { memoryStore } from '../store/memory.js'
import { ENV_NAME_REFUSED } from './env-names.js'

const PASTED = 'ghp_PASTEDabcdefghijklmnopqrstuvwxyz0123'

/** Reads the variable its option names, quoting the name when it is unset — as plugins do. */
function readVariable(options: { tokenEnv?: string }): void {
  const name = options.tokenEnv ?? 'UNSET'
  if (!process.env[name]) throw new Error(`the environment variable ${name} is not set`)
}

const schemaless = definePlugin<{ tokenEnv?: string }>({
  name: 'schemaless',
  setup(_agent, options) {
    readVariable(options)
  },
})

const schemalessStore = defineStore<{ tokenEnv?: string }>({
  name: 'schemaless-store',
  create(options) {
    readVariable(options)
    return memoryStore()
  },
})

const shown = (error: unknown) => JSON.stringify({ message: (error as Error).message, details: (error as BosunError).details })

describe('…Env options of a plugin or store without a schema', () => {
  it('a plugin: refused as an options error, the value never shown', async () => {
    const error = await createAgent({ model: scripted({ responses: [] }), plugins: [[schemaless, { tokenEnv: PASTED }]] }).catch((e: unknown) => e)
    expect(BosunError.is(error, ErrorCodes.PLUGIN_OPTIONS_INVALID), String(error)).toBe(true)
    expect((error as Error).message.split('\n').slice(1)).toEqual([`  - $.tokenEnv: ${ENV_NAME_REFUSED}`])
    expect(shown(error)).not.toContain(PASTED)
  })

  it('a store: refused as an options error, the value never shown', async () => {
    const error = await createStore(schemalessStore, { tokenEnv: PASTED }).catch((e: unknown) => e)
    expect(BosunError.is(error, ErrorCodes.PLUGIN_OPTIONS_INVALID), String(error)).toBe(true)
    expect((error as Error).message.split('\n').slice(1)).toEqual([`  - $.tokenEnv: ${ENV_NAME_REFUSED}`])
    expect(shown(error)).not.toContain(PASTED)
  })

  it('a variable name still passes to the plugin and the store, whatever else they are given', async () => {
    process.env.BOSUN_TEST_SCHEMALESS_TOKEN = 'x'
    try {
      const agent = await createAgent({ model: scripted({ responses: [] }), plugins: [[schemaless, { tokenEnv: 'BOSUN_TEST_SCHEMALESS_TOKEN', extra: [1] }]] })
      await agent.close()
      const store = await createStore(schemalessStore, { tokenEnv: 'BOSUN_TEST_SCHEMALESS_TOKEN' })
      await store.close()
    } finally {
      delete process.env.BOSUN_TEST_SCHEMALESS_TOKEN
    }
  })
})
