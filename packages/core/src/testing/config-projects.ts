// Test-only (excluded from the build): throw-away projects for config tests that write their own
// files, and the problems loading their config gives.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect } from 'vitest'
import { loadConfig } from '../config/load.js'

/**
 * A maker of temporary projects named `<prefix>…`, each with a package.json and the given files
 * (paths may name folders); every one made is removed after each test. Call at a test file's top.
 */
export function configProjects(prefix: string): (files: Record<string, string>) => Promise<string> {
  const dirs: string[] = []
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
  })
  return async (files) => {
    const dir = await mkdtemp(join(tmpdir(), prefix))
    dirs.push(dir)
    await writeFile(join(dir, 'package.json'), '{ "name": "p", "private": true }\n')
    for (const [name, text] of Object.entries(files)) {
      await mkdir(join(dir, name, '..'), { recursive: true })
      await writeFile(join(dir, name), text)
    }
    return dir
  }
}

/** The messages of the CONFIG_INVALID error loading `dir`'s config gives (failing the test if none). */
export async function configProblems(dir: string): Promise<string[]> {
  const error = await loadConfig({ cwd: dir }).then(() => undefined, (caught: unknown) => caught as { code: string; details: { problems: { message: string }[] } })
  expect(error?.code).toBe('CONFIG_INVALID')
  return error!.details.problems.map((problem) => problem.message)
}
