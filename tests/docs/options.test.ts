// Every option a config or code can give is documented, and every documented option exists. The
// options of each adapter, store and plugin are the schema.json its manifest names (kept equal to
// the schema its definition validates with by first-party-manifests.test.ts); they are documented
// in the package README's option tables (a header with "type" and "default"), one row per
// top-level option with its type, default and what it does, and the fields of nested objects named
// there too. The config's own keys are the core's configSchema, documented in docs/config.md's
// "Keys" table. An option added without its row, or a row left after its option went, fails here.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { configSchema } from '@bosun/core/config'
// @ts-expect-error: a plain .mjs script without types
import { manifestSchemaFiles } from '../../scripts/write-manifest-schemas.mjs'
import { problemsOf, type Schema } from './option-tables.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

const manifests = (manifestSchemaFiles(root) as { dir: string; file: string }[]).map(({ dir, file }) => [dir.slice(root.length), dir, file] as const)

describe('every option of an adapter, store or plugin is in its README, and nothing else is', () => {
  it('finds the packages', () => {
    expect(manifests.map(([name]) => name)).toEqual(expect.arrayContaining(['packages/adapters/openai', 'packages/plugins/store-postgres', 'examples/bosun-plugin-word-limit']))
  })
  it.each(manifests)('%s', (name, dir, file) => {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Schema
    expect(problemsOf(schema, readFileSync(join(dir, 'README.md'), 'utf8'), `${name}/README.md`)).toEqual([])
  })
})

it('every key of the config is in docs/config.md, and nothing else is', () => {
  const markdown = readFileSync(join(root, 'docs/config.md'), 'utf8')
  expect(problemsOf(configSchema as Schema, markdown, 'docs/config.md')).toEqual([])
})

describe('the check itself', () => {
  const schema = { type: 'object', properties: { a: { type: 'integer' }, list: { type: 'array', items: { type: 'object', properties: { inner: {} } } } } }
  it('finds an option without a row, a field not named, a row without its cells and a stale row', () => {
    const markdown = ['| option | type | default | |', '|---|---|---|---|', '| `a` | integer |  | |', '| `gone` | string | — | was here |'].join('\n')
    expect(problemsOf(schema, markdown, 'R')).toEqual([
      'R:3: the row of "a" needs its type, default and what it does',
      'R: option "list" has no row in an option table (option | type | default | what it does)',
      'R: "inner" (a field of a nested option) is not named in the option tables',
      'R:4: "gone" is documented but is not an option (its schema has no such property; say "code only" if only code can give it)',
    ])
  })
  it('finds a default the row gets wrong, and reads one written with quotes or digit separators', () => {
    const withDefaults = { type: 'object', properties: { n: { type: 'integer', default: 4 }, wait: { type: 'integer', default: 60000 }, mode: { enum: ['a', 'b'], default: 'a' } } }
    const markdown = ['| option | type | default | |', '|---|---|---|---|', '| `n` | integer | `64` | how many |', '| `wait` | integer | 60,000 | how long |', '| `mode` | `\'a\'` \\| `\'b\'` | `\'a\'` | which |'].join('\n')
    expect(problemsOf(withDefaults, markdown, 'R')).toEqual(['R:3: the default of "n" is 4, the row says `64`'])
  })
  it('passes a whole table', () => {
    const markdown = ['| option | type | default | |', '|---|---|---|---|', '| `a` | integer | `1` | how many |', '| `list` | `{ inner }[]` | `[]` | the items |', '| `fs` | object (code only) | node:fs | files |'].join('\n')
    expect(problemsOf(schema, markdown, 'R')).toEqual([])
  })
})
