// For the tests of a harness that starts a process: a stand-in script (playing `bosun serve`,
// Verdaccio or a scale-out host) written to a fresh temp folder before the file's tests and
// removed after them, and the error a start that must fail rejects with.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'

/** Registers the hooks that write `source` as `<dir>/stand-in.mjs` and remove `dir`; both are set once beforeAll has run. */
export function standIn(source: string): { dir: string; script: string } {
  const at = { dir: '', script: '' }
  beforeAll(async () => {
    at.dir = await mkdtemp(join(tmpdir(), 'bosun-stand-in-'))
    at.script = join(at.dir, 'stand-in.mjs')
    await writeFile(at.script, source)
  })
  afterAll(async () => {
    await rm(at.dir, { recursive: true, force: true })
  })
  return at
}

/** The error `promise` rejects with; a rejection itself if it resolves (a start that should have failed). */
export function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(() => Promise.reject(new Error('it resolved')), (error: unknown) => error as Error)
}
