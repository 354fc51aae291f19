// startHost never leaves a host process behind: one that does not listen in time is killed, one
// that ends first is reported with its stderr, and stop() ends one that ignores SIGTERM. A
// stand-in script plays host.mjs (no PostgreSQL needed).
import { expect, it } from 'vitest'
import { isRunning } from '../support/child-process.js'
import { rejection, standIn } from '../support/stand-in.js'
import { startHost } from './hosts.js'

/** Ignores SIGTERM; then, by MODE: `listen` prints host.mjs's line, `quit` writes an error and exits 3, `hang` stays silent. */
const STAND_IN = `process.on('SIGTERM', () => {})
if (process.env.MODE === 'quit') { process.stderr.write('no PG_URL'); process.exit(3) }
if (process.env.MODE === 'listen') process.stdout.write('listening http://127.0.0.1:1\\n')
setInterval(() => {}, 60_000)
`

const stand = standIn(STAND_IN)

it('kills a host that has not listened within the start timeout', async () => {
  const error = await rejection(startHost('host-0', { MODE: 'hang' }, { script: stand.script, startTimeoutMs: 200 }))
  expect(error.message).toMatch(/^host host-0 \(pid \d+\) did not listen within 200 ms; it was killed/)
  expect(isRunning(Number(/pid (\d+)/.exec(error.message)![1]))).toBe(false)
})

it('reports a host that exits before it listens, with its stderr', async () => {
  const error = await rejection(startHost('host-1', { MODE: 'quit' }, { script: stand.script }))
  expect(error.message).toMatch(/exited \(3\) before listening: no PG_URL/)
})

it('stop() kills a host that ignores SIGTERM once the grace is over', async () => {
  const host = await startHost('host-2', { MODE: 'listen' }, { script: stand.script, stopGraceMs: 100 })
  expect(host).toMatchObject({ url: 'http://127.0.0.1:1', alive: true })
  await host.stop()
  expect(host.alive).toBe(false)
  expect(host.child.signalCode).toBe('SIGKILL')
})
