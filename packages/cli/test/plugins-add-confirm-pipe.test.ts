// `bosun plugins add`'s `[y/N]` answered through a pipe (`echo n | bosun plugins add x`) left no
// newline after the question: a terminal echoes the Enter, a pipe does not, so the next line
// ("error NOT_CONFIRMED: …") ran on after "[y/N] ". Piped, the answer as taken ends the line.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'
import { localRegistry, type LocalRegistry } from './local-registry.js'

let server: LocalRegistry

const PLUGIN = { name: 'bosun-plugin-quiet', version: '1.0.0', keywords: ['bosun-plugin'], license: 'MIT', bosun: { kind: 'plugin', hooks: [] } }

beforeAll(async () => {
  requireBuild()
  server = await localRegistry((url, base) =>
    url.pathname === `/${PLUGIN.name}`
      ? { name: PLUGIN.name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { ...PLUGIN, dist: { tarball: `${base}${PLUGIN.name}/-/quiet-1.0.0.tgz` } } } }
      : undefined,
  )
})

afterAll(async () => {
  await server?.close()
})

describe.concurrent('plugins add, its question answered through a pipe', () => {
  it.for([
    ['n\n', 'no'],
    ['yep\n', 'no'],
    ['', 'no'],
  ])('%j: the answer taken ends the question\'s line', async ([input, taken], { dir, expect }) => {
    await writeFile(join(dir, 'bosun.config.json'), '{}\n')
    const result = await bosun(['plugins', 'add', PLUGIN.name, '--registry', server.url], { cwd: dir, input })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`and add it to the config? [y/N] ${taken}\nerror NOT_CONFIRMED: `)
  })
})
