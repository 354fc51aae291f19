#!/usr/bin/env node
// The second half of `pnpm version-packages` (after `changeset version`): every peer range that
// one of Bosun's published packages gives another (the plugins' `@bosun/core`, the CLI's optional
// `@bosun/plugin-store-sqlite`) becomes `^<the version it now has>`.
//
// Why not `workspace:^`: changesets releases every dependent of a peer as a major whenever the
// peer gets a minor, so each minor of the core would make the plugins 1.0.0. The peers are plain
// ranges that changesets leaves alone (`bumpVersionsWithWorkspaceProtocolOnly`), and this script
// moves them. So does a manifest's `bosun.core` (the core range an adapter or store that has no core
// peer declares for `bosun plugins info` and the loader's check): it becomes `^<the core's version>`. The packages share one version (the fixed group in .changeset/config.json), so a
// peer on `^<version>` is always the release it ships with. docs/releasing.md tells the whole flow.
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The published packages (the fixed group) with their folders and manifests. */
export function publishedPackages(root) {
  const [group = []] = JSON.parse(readFileSync(join(root, '.changeset/config.json'), 'utf8')).fixed
  const found = new Map()
  for (const parent of ['packages', 'packages/adapters', 'packages/plugins']) {
    for (const name of readdirSync(join(root, parent))) {
      const file = join(root, parent, name, 'package.json')
      if (!existsSync(file)) continue
      const manifest = JSON.parse(readFileSync(file, 'utf8'))
      if (group.includes(manifest.name)) found.set(manifest.name, { file, manifest })
    }
  }
  return found
}

/** The peer ranges that are not `^<version>` of the package they name: `{ file, pkg, peer, from, to }`. */
export function peerRangeUpdates(root) {
  const packages = publishedPackages(root)
  const updates = []
  for (const [pkg, { file, manifest }] of packages) {
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
      const target = packages.get(peer)
      if (target === undefined) continue
      const to = `^${target.manifest.version}`
      if (range !== to) updates.push({ file: relative(root, file), pkg, peer, from: range, to })
    }
    const core = packages.get('@bosun/core')
    const declared = manifest.bosun?.core
    if (core !== undefined && typeof declared === 'string' && declared !== `^${core.manifest.version}`) {
      updates.push({ file: relative(root, file), pkg, peer: 'bosun.core', from: declared, to: `^${core.manifest.version}` })
    }
  }
  return updates
}

/** Writes the updates (only the manifests that change; formatting of the rest kept as `changeset version` leaves it). */
export function syncPeerRanges(root) {
  const updates = peerRangeUpdates(root)
  for (const { file, peer, to } of updates) {
    const path = join(root, file)
    const manifest = JSON.parse(readFileSync(path, 'utf8'))
    if (peer === 'bosun.core') manifest.bosun.core = to
    else manifest.peerDependencies[peer] = to
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`)
  }
  return updates
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(fileURLToPath(import.meta.url), '../..')
  const updates = syncPeerRanges(root)
  for (const { file, peer, from, to } of updates) console.log(`${file}: peer ${peer} ${from} → ${to}`)
  if (updates.length === 0) console.log('peer ranges already match the versions')
}
