// startListening (how the rehearsal starts Verdaccio) never leaves a process behind: a server that
// does not listen in time is killed, one that ends first is reported with what it printed, and
// stop() ends one that ignores SIGTERM. A stand-in script plays the server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { isRunning } from '../support/child-process.js'
import { startListening } from './registry.js'

/** Ignores SIGTERM; then, by argv[2]: `listen` prints the line Verdaccio's wrapper prints, `quit` prints an error and exits 3, `hang` stays silent. */
const STAND_IN = `process.on('SIGTERM', () => {})
const mode = process.argv[2]
if (mode === 'quit') { console.log('config: no storage'); process.exit(3) }
if (mode === 'listen') console.log('listening on 4873')
setInterval(() => {}, 60_000)
`

let dir: string
let script: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-registry-start-'))
  script = join(dir, 'stand-in.mjs')
  await writeFile(script, STAND_IN)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

it('kills a server that has not listened within the start timeout', async () => {
  const error = await startListening(script, ['hang'], { startTimeoutMs: 200 }).then(() => Promise.reject(new Error('it started')), (e: unknown) => e as Error)
  expect(error.message).toMatch(/\(pid \d+\) did not listen within 200 ms and was killed/)
  expect(isRunning(Number(/pid (\d+)/.exec(error.message)![1]))).toBe(false)
})

it('reports a server that ends before it listens, with what it printed', async () => {
  const error = await startListening(script, ['quit']).then(() => Promise.reject(new Error('it started')), (e: unknown) => e as Error)
  expect(error.message).toMatch(/ended before it listened:\nconfig: no storage/)
})

it('stop() kills a server that ignores SIGTERM once the grace is over', async () => {
  const server = await startListening(script, ['listen'], { stopGraceMs: 100 })
  expect(server.port).toBe('4873')
  await server.stop()
  expect(server.child.signalCode).toBe('SIGKILL')
})
