// `bosun plugins info openai` (found by hand, after `bosun plugins search` listed
// @bosun/adapter-openai): a short name is looked up as a plugin (`@bosun/plugin-openai`,
// `bosun-plugin-openai`), then as typed — the npm package `openai`, which is no Bosun package. The
// error named only that package ("openai@7.0.0 is not a Bosun package"), not the plugin names it
// had looked for first, nor that an adapter or a store is named by its package. A local registry
// holding only the unrelated `openai` stands in for npmjs.
import { afterAll, beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'
import { localRegistry, type LocalRegistry } from './local-registry.js'

let server: LocalRegistry
let registry: string

beforeAll(async () => {
  requireBuild()
  server = await localRegistry((url, base) => {
    if (url.pathname !== '/openai') return undefined
    const version = { name: 'openai', version: '7.0.0', description: 'The OpenAI API library', keywords: ['openai'], dist: { tarball: `${base}openai/-/openai-7.0.0.tgz` } }
    return { name: 'openai', 'dist-tags': { latest: '7.0.0' }, versions: { '7.0.0': version } }
  })
  registry = server.url
})

afterAll(() => server.close())

describe.concurrent('a short name that only an unrelated package answers', () => {
  it.for(['info', 'add'])('plugins %s says which plugin names were looked for, and how to name an adapter or a store', async (command, { dir, expect }) => {
    const result = await bosun(['plugins', command, 'openai', '--registry', registry], { cwd: dir })
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'error NOT_A_BOSUN_PACKAGE: no Bosun plugin "@bosun/plugin-openai" or "bosun-plugin-openai" on the registry, and openai@7.0.0 is not a Bosun package: it has none of the keywords "bosun-plugin", "bosun-adapter", "bosun-store". An adapter or a store is named by its package (bosun plugins search openai lists them). Nothing was installed.\n',
    })
  })
})
