// Test-only helpers for the config loader (excluded from the build). Fixture configs load the
// packages they name the way an installed application does — through their `exports`, from
// `dist/` — so the packages they use are built first (incrementally: quick when current).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BosunError } from '../errors.js'

const root = fileURLToPath(new URL('../../../../', import.meta.url))
const tsc = fileURLToPath(new URL('../../../../node_modules/typescript/bin/tsc', import.meta.url))

/** The fixtures folder, and one case in it. */
export const fixtures = fileURLToPath(new URL('../config/fixtures', import.meta.url))
export const fixture = (name: string): string => `${fixtures}/${name}`

let built = false

/**
 * Builds core, the scripted adapter and the store plugins, once per test process. Test files run
 * in parallel processes: a lock folder keeps two builds from writing `dist/` at once.
 */
export function buildFixturePackages(): void {
  if (built) return
  const lock = join(tmpdir(), `bosun-fixture-build-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.lock`)
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true })
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
    }
  }
  try {
    const projects = ['packages/core', 'packages/adapters/scripted', 'packages/plugins/store-jsonl', 'packages/plugins/store-sqlite']
    execFileSync(process.execPath, [tsc, '-b', ...projects], { cwd: root, stdio: 'pipe' })
  } catch (error) {
    // Type errors elsewhere in a project still emit; only a missing entry point stops the suite.
    if (!existsSync(`${root}packages/core/dist/config/index.js`)) throw error
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  built = true
}

/** Bad fixtures that are loaded with the `file` option (the others are found by searching). */
export const BAD_FIXTURE_FILES: Readonly<Record<string, string>> = {
  'file-not-found': 'bosun.config.yaml',
  'file-package-json-without-key': 'package.json',
}

/** The message of the error `promise` rejects with, with the fixtures folder shown as `<fixtures>`. */
export async function configMessage(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (!BosunError.is(error)) throw error
    return normalize(error.message)
  }
  throw new Error('expected the config to be refused')
}

/** Replaces the absolute fixtures folder with `<fixtures>`. */
export function normalize(text: string): string {
  return text.split(fixtures).join('<fixtures>')
}
