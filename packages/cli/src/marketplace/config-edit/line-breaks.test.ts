// A config file checked out with CRLF line breaks (Windows, git's autocrlf) keeps them through
// `bosun plugins add` and `remove`: the lines an edit writes end in `\r\n` like the others, and a
// YAML comment on the `plugins:` line is still seen as one. Before, the new line ended in a bare
// `\n` (a file with both), JSON was rewritten with `\n` alone, and a YAML `plugins:` line with a
// comment was not edited at all. Real files, loaded again by the core's loader as the command does.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addPluginEntry, removePluginEntry } from './config-file.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-crlf-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const crlf = (text: string) => text.replace(/\n/g, '\r\n')
const entry = ['word-guard', { words: ['x'] }]
const isGuard = (name: string) => name === 'word-guard'

describe('a CRLF config file edited by add and remove', () => {
  it.each([
    ['bosun.config.yaml', '# agent\nplugins:   # mine\n  - retry\nsystem: hi\n', '# agent\nplugins:   # mine\n  - retry\n  - ["word-guard",{"words":["x"]}]\nsystem: hi\n'],
    ['bosun.config.yml', 'plugins: [retry]  # list\n', 'plugins: [retry, ["word-guard",{"words":["x"]}]]  # list\n'],
    ['bosun.config.ts', "export default {\n  plugins: [\n    'retry', // bundled\n  ],\n}\n", "export default {\n  plugins: [\n    'retry', // bundled\n    ['word-guard', { words: ['x'] }],\n  ],\n}\n"],
    ['bosun.config.mjs', "export default {\n  system: 'hi',\n}\n", "export default {\n  plugins: [['word-guard', { words: ['x'] }]],\n  system: 'hi',\n}\n"],
    ['bosun.config.json', '{\n  "plugins": ["retry"]\n}\n', '{\n  "plugins": [\n    "retry",\n    [\n      "word-guard",\n      {\n        "words": [\n          "x"\n        ]\n      }\n    ]\n  ]\n}\n'],
  ])('%s keeps its CRLF line breaks', async (name, before, after) => {
    const file = join(dir, name)
    await writeFile(file, crlf(before))
    expect(await addPluginEntry(file, entry)).toEqual({ edited: true })
    expect(await readFile(file, 'utf8')).toBe(crlf(after))
    // A one-line YAML flow list is not edited by remove (it prints the line to change instead).
    if (name.endsWith('.yml')) return
    expect(await removePluginEntry(file, isGuard)).toEqual({ edited: true })
    expect(await readFile(file, 'utf8')).not.toMatch(/[^\r]\n/)
  })
})
