// startListening (how the rehearsal starts Verdaccio) never leaves a process behind: a server that
// does not listen in time is killed, one that ends first is reported with what it printed, and
// stop() ends one that ignores SIGTERM. A stand-in script plays the server.
import { expect, it } from 'vitest'
import { isRunning } from '../support/child-process.js'
import { rejection, standIn } from '../support/stand-in.js'
import { startListening } from './registry.js'

/** Ignores SIGTERM; then, by argv[2]: `listen` prints the line Verdaccio's wrapper prints, `quit` prints an error and exits 3, `hang` stays silent. */
const STAND_IN = `process.on('SIGTERM', () => {})
const mode = process.argv[2]
if (mode === 'quit') { console.log('config: no storage'); process.exit(3) }
if (mode === 'listen') console.log('listening on 4873')
setInterval(() => {}, 60_000)
`

const stand = standIn(STAND_IN)

it('kills a server that has not listened within the start timeout', async () => {
  const error = await rejection(startListening(stand.script, ['hang'], { startTimeoutMs: 200 }))
  expect(error.message).toMatch(/\(pid \d+\) did not listen within 200 ms and was killed/)
  expect(isRunning(Number(/pid (\d+)/.exec(error.message)![1]))).toBe(false)
})

it('reports a server that ends before it listens, with what it printed', async () => {
  const error = await rejection(startListening(stand.script, ['quit']))
  expect(error.message).toMatch(/ended before it listened:\nconfig: no storage/)
})

it('stop() kills a server that ignores SIGTERM once the grace is over', async () => {
  const server = await startListening(stand.script, ['listen'], { stopGraceMs: 100 })
  expect(server.port).toBe('4873')
  await server.stop()
  expect(server.child.signalCode).toBe('SIGKILL')
})
