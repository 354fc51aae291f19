// Which import of a code config names a package: `remove` refuses to uninstall one the config
// imports. Real files; comments and strings that merely mention the name do not count.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importedBy } from './config-file.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-imported-by-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function check(name: string, text: string): Promise<string | undefined> {
  const file = join(dir, name)
  await writeFile(file, text)
  return importedBy(file, 'bosun-plugin-word-ban')
}

describe('importedBy', () => {
  it.each([
    ["import wordBan from 'bosun-plugin-word-ban'\n", 'bosun-plugin-word-ban'],
    ['import { type Options } from "bosun-plugin-word-ban/options"\n', 'bosun-plugin-word-ban/options'],
    ["const wordBan = (await import ('bosun-plugin-word-ban')).default\n", 'bosun-plugin-word-ban'],
    ["const wordBan = require('bosun-plugin-word-ban')\n", 'bosun-plugin-word-ban'],
    ["import other from 'bosun-plugin-word-ban-extra'\n", undefined],
    ["// import wordBan from 'bosun-plugin-word-ban'\n/* require('bosun-plugin-word-ban') */\nexport default { system: \"from 'bosun-plugin-word-ban'\" }\n", undefined],
  ])('%s → %s', async (text, expected) => {
    expect(await check('bosun.config.ts', text)).toBe(expected)
  })

  it('reads only code configs', async () => {
    expect(await check('bosun.config.yaml', "# import x from 'bosun-plugin-word-ban'\nplugins: [word-ban]\n")).toBeUndefined()
  })
})
