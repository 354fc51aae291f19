// `pnpm version-packages` runs scripts/sync-peer-ranges.mjs after `changeset version`: every peer
// range between published packages, and every `bosun.core` range an adapter or store declares
// (f3d73f7 added them for `bosun plugins info`; the loader checks them), must follow the new
// version — a stale `bosun.core` would make the loader refuse Bosun's own adapters after a release.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without types
import { syncPeerRanges } from '../../scripts/sync-peer-ranges.mjs'

let root = ''
afterEach(() => rm(root, { recursive: true, force: true }))

async function manifest(folder: string, content: Record<string, unknown>): Promise<void> {
  await mkdir(join(root, folder), { recursive: true })
  await writeFile(join(root, folder, 'package.json'), `${JSON.stringify(content, null, 2)}\n`)
}

it('moves peer ranges and bosun.core to ^<the new version>, and nothing else', async () => {
  root = await mkdtemp(join(tmpdir(), 'bosun-sync-peers-'))
  await mkdir(join(root, '.changeset'))
  await writeFile(join(root, '.changeset/config.json'), JSON.stringify({ fixed: [['@bosun/core', '@bosun/adapter-x', '@bosun/plugin-y']] }))
  await manifest('packages/core', { name: '@bosun/core', version: '1.2.0' })
  await manifest('packages/adapters/x', { name: '@bosun/adapter-x', version: '1.2.0', bosun: { kind: 'adapter', core: '^0.0.0' }, dependencies: { '@bosun/core': 'workspace:^' } })
  await manifest('packages/plugins/y', { name: '@bosun/plugin-y', version: '1.2.0', bosun: { kind: 'plugin' }, peerDependencies: { '@bosun/core': '^0.0.0', other: '^3.0.0' } })
  const updates = syncPeerRanges(root) as { pkg: string; peer: string; from: string; to: string }[]
  expect(updates.map(({ pkg, peer, from, to }) => `${pkg} ${peer} ${from} → ${to}`).sort()).toEqual([
    '@bosun/adapter-x bosun.core ^0.0.0 → ^1.2.0',
    '@bosun/plugin-y @bosun/core ^0.0.0 → ^1.2.0',
  ])
  const adapter = JSON.parse(await readFile(join(root, 'packages/adapters/x/package.json'), 'utf8'))
  expect(adapter.bosun).toEqual({ kind: 'adapter', core: '^1.2.0' })
  expect(adapter.dependencies).toEqual({ '@bosun/core': 'workspace:^' })
  const plugin = JSON.parse(await readFile(join(root, 'packages/plugins/y/package.json'), 'utf8'))
  expect(plugin.peerDependencies).toEqual({ '@bosun/core': '^1.2.0', other: '^3.0.0' })
  expect(syncPeerRanges(root)).toEqual([])
})
