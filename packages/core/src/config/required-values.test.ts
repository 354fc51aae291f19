// A missing required option whose schema lists its values said only "is required" (U1: a
// content-filter rule without `action`): it now says the values too, for any module's schema.
import { mkdir, symlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { configProjects } from '../testing/config-projects.js'
import { assertOptions } from '../schema.js'
import { loadConfig } from './load.js'

const project = configProjects('bosun-required-values-')
const PACKAGES = resolve(fileURLToPath(import.meta.url), '../../../..')

/** Installs a package of this repository in the project: a link, as a workspace does. */
async function install(dir: string, name: string, folder: string): Promise<void> {
  await mkdir(join(dir, 'node_modules/@bosun'), { recursive: true })
  await symlink(join(PACKAGES, folder), join(dir, 'node_modules', name), 'dir')
}

async function problems(dir: string): Promise<{ path: string; message: string }[]> {
  const error = await loadConfig({ cwd: dir }).then(() => undefined, (caught: unknown) => caught as { code: string; details: { problems: { path: string; message: string }[] } })
  expect(error?.code).toBe('CONFIG_INVALID')
  return error!.details.problems.map(({ path, message }) => ({ path, message }))
}

const SCHEMA = {
  type: 'object',
  definitions: { level: { enum: [1, 2, 3] } },
  properties: {
    mode: { anyOf: [{ const: 'fast' }, { const: 'safe' }] },
    level: { $ref: '#/definitions/level' },
    only: { const: 'x' },
    label: { type: 'string' },
    nested: { type: 'object', properties: { side: { oneOf: [{ const: 'left' }, { enum: ['right', 'left'] }] } }, required: ['side'] },
  },
  required: ['mode', 'level', 'only', 'label', 'nested'],
}

describe('a missing required option says the values its schema lists', () => {
  it('content-filter: a rule without "action"', async () => {
    const dir = await project({ 'bosun.config.json': JSON.stringify({ plugins: [['content-filter', { rules: [{ id: 'card', pattern: '\\d{16}' }] }]] }) })
    await install(dir, '@bosun/plugin-content-filter', 'plugins/content-filter')
    expect(await problems(dir)).toEqual([{ path: '$.plugins[0][1].rules[0].action', message: 'is required: one of "reject", "redact"' }])
  }, 60_000)

  it("any module's schema: enum, const, anyOf and oneOf of those, a $ref; nothing for a free value", async () => {
    const dir = await project({
      'bosun.config.json': JSON.stringify({ plugins: [['./plugin.mjs', { nested: {} }]] }),
      'plugin.mjs': `import { definePlugin } from '@bosun/core'\nexport default definePlugin({ name: 'picky', schema: ${JSON.stringify(SCHEMA)}, setup() {} })\n`,
    })
    await install(dir, '@bosun/core', 'core')
    expect(await problems(dir)).toEqual([
      { path: '$.plugins[0][1].mode', message: 'is required: one of "fast", "safe"' },
      { path: '$.plugins[0][1].level', message: 'is required: one of 1, 2, 3' },
      { path: '$.plugins[0][1].only', message: 'is required: must be "x"' },
      { path: '$.plugins[0][1].label', message: 'is required' },
      { path: '$.plugins[0][1].nested.side', message: 'is required: one of "left", "right"' },
    ])
  }, 60_000)
})

describe('options given from code get the same words', () => {
  it("assertOptions (every adapter's and plugin's check from code): the listed values, or plain \"is required\"", () => {
    const schema = {
      type: 'object',
      properties: { action: { enum: ['reject', 'redact'] }, mode: { const: 'strict' }, name: { type: 'string' } },
      required: ['action', 'mode', 'name'],
    }
    let message = ''
    try {
      assertOptions(schema, {}, 'guard()')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message.split('\n').slice(1)).toEqual(['  - $.action: is required: one of "reject", "redact"', '  - $.mode: is required: must be "strict"', '  - $.name: is required'])
  })
})
