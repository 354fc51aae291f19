// The test registry itself: what the marketplace and release tests rely on it to do while
// installs run beside their searches.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startRegistry, type Registry } from './registry.js'

let dir: string
let registry: Registry

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-registry-'))
  // An uplink that refuses at once: the answers come only from this registry's storage.
  registry = await startRegistry(dir, 'http://127.0.0.1:1/')
}, 60_000)

afterAll(async () => {
  await registry?.close()
  await rm(dir, { recursive: true, force: true })
})

/** A package document as Verdaccio stores a published one (storage/<name>/package.json). */
function packument(name: string, description: string) {
  const time = '2026-01-01T00:00:00.000Z'
  return {
    name,
    description,
    versions: { '1.0.0': { name, version: '1.0.0', description, dist: { tarball: `${registry.url}${name}/-/${name}-1.0.0.tgz`, shasum: '0' } } },
    'dist-tags': { latest: '1.0.0' },
    time: { created: time, modified: time, '1.0.0': time },
    _attachments: {},
    _distfiles: {},
    _uplinks: {},
    _rev: '1-0',
    readme: '',
  }
}

it('search finds a published package while a folder before it has no package.json yet (an uplink document being written)', async () => {
  const storage = join(dir, 'storage')
  await mkdir(join(storage, 'bosun-plugin-found-guard'))
  await writeFile(join(storage, 'bosun-plugin-found-guard/package.json'), JSON.stringify(packument('bosun-plugin-found-guard', 'a guard to be found')))
  // Verdaccio walks the folders in the order Node lists them (sorted): `ajv`, the folder of a
  // document being fetched from the uplink, comes before the package.
  await mkdir(join(storage, 'ajv'))
  expect((await readdir(storage)).filter((name) => !name.startsWith('.'))).toEqual(['ajv', 'bosun-plugin-found-guard'])
  const response = await fetch(new URL('-/v1/search?text=found&size=250', registry.url))
  expect(response.status).toBe(200)
  const answer = (await response.json()) as { objects: { package: { name: string } }[] }
  expect(answer.objects.map((hit) => hit.package.name)).toEqual(['bosun-plugin-found-guard'])
})

it('search answers from this registry only: the uplink is not asked (the tests must not wait on, or depend on, the public registry)', async () => {
  // An uplink that records what it is asked and answers a search with a stranger's package.
  const asked: string[] = []
  const upstream = createServer((request, response) => {
    asked.push(request.url ?? '')
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ objects: [{ package: { name: 'bosun-plugin-stranger', version: '1.0.0', description: 'from the public registry', keywords: ['bosun-plugin'] } }], total: 1 }))
  })
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done))
  const own = await mkdtemp(join(tmpdir(), 'bosun-registry-uplink-'))
  const local = await startRegistry(own, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`)
  try {
    for (const query of ['-/v1/search?text=stranger&size=20', '-/v1/search']) {
      const response = await fetch(new URL(query, local.url))
      expect(response.status).toBe(200)
      const answer = (await response.json()) as { objects: { package: { name: string } }[] }
      expect(answer.objects.map((hit) => hit.package.name)).toEqual([])
    }
    expect(asked).toEqual([])
  } finally {
    await local.close()
    await new Promise((done) => upstream.close(done))
    await rm(own, { recursive: true, force: true })
  }
}, 60_000)
