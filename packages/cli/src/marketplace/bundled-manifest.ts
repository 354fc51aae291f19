import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { JsonSchema } from '@bosun/core'
import { bosunManifest, type BosunManifest } from './manifest.js'

/** The manifest and options schema of a package the CLI brings, read from its own install. */
export interface BundledPackage {
  manifest: BosunManifest
  schema: JsonSchema | undefined
}

const require = createRequire(import.meta.url)

/**
 * `plugins info retry` on a registry without Bosun's own packages: the copy the CLI brings is the
 * one a config naming "retry" gets, so its package.json and schema file are what to show (every
 * Bosun package exports `./package.json`). `undefined` when it cannot be read (then the
 * BUNDLED_WITH_CLI answer stands).
 */
export function readBundledPackage(name: string): BundledPackage | undefined {
  let file: string
  try {
    file = require.resolve(`${name}/package.json`)
  } catch {
    return undefined
  }
  const manifest = bosunManifest(JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string })
  if (manifest.optionsPath === undefined) return { manifest, schema: undefined }
  return { manifest, schema: JSON.parse(readFileSync(join(dirname(file), manifest.optionsPath), 'utf8')) as JsonSchema }
}
