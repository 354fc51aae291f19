// The browser tests' `serve()` must never leave a process behind or hang a hook: a start that
// does not finish is given up (by its deadline or its caller) and its child killed, stop() ends a
// host that ignores SIGTERM, and a child that cannot start is a rejection saying why. Runs with or
// without Chromium: a stand-in for `bosun serve` (a small script given as `cli`) plays each part.
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isRunning } from '../support/child-process.js'
import { rejection, standIn } from '../support/stand-in.js'
import { serve, until } from './harness.js'

/**
 * Ignores SIGTERM, writes its pid to `pid` in its cwd and stays up; prints what `bosun serve` prints
 * when started with FAKE_SERVE=ready, nothing otherwise.
 */
const FAKE_SERVE = `import { writeFileSync } from 'node:fs'
process.on('SIGTERM', () => {})
writeFileSync('pid', String(process.pid))
if (process.env.FAKE_SERVE === 'ready') {
  process.stdout.write('listening on http://127.0.0.1:1\\n')
  process.stderr.write('web UI: http://127.0.0.1:1/\\n')
}
setInterval(() => {}, 60_000)
`

describe('serve() of the browser tests’ harness', () => {
  const fake = standIn(FAKE_SERVE)

  it('gives up a start that prints nothing by its deadline, and kills the child (which ignores SIGTERM)', async () => {
    const error = await rejection(serve(fake.dir, { cli: fake.script, startTimeoutMs: 200 }))
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toMatch(/^bosun serve \(pid \d+\) did not print its URL within 200 ms; it was killed/)
    expect(isRunning(Number(/pid (\d+)/.exec(error.message)![1]))).toBe(false)
  })

  it('gives up a start its caller aborts, and kills the child', async () => {
    const work = await mkdtemp(join(fake.dir, 'aborted-'))
    const controller = new AbortController()
    const starting = rejection(serve(work, { cli: fake.script, signal: controller.signal }))
    const pid = await until(() => (existsSync(join(work, 'pid')) ? Number(readFileSync(join(work, 'pid'), 'utf8')) : 0), 'the child’s pid file')
    controller.abort()
    const error = await starting
    expect(error.message).toMatch(/did not print its URL before the start was aborted; it was killed/)
    expect(isRunning(pid)).toBe(false)
  })

  it('stop() kills a host that ignores SIGTERM once its grace is over, and resolves when it has exited', async () => {
    const work = await mkdtemp(join(fake.dir, 'stubborn-'))
    const server = await serve(work, { cli: fake.script, env: { FAKE_SERVE: 'ready' }, stopGraceMs: 200 })
    expect(server.url).toBe('http://127.0.0.1:1')
    await server.stop()
    expect(server.child.signalCode).toBe('SIGKILL')
    expect(isRunning(server.child.pid!)).toBe(false)
  })

  it('rejects, saying why, when the child cannot start (a folder that does not exist)', async () => {
    const error = await rejection(serve(join(fake.dir, 'no-such-folder'), { cli: fake.script }))
    expect(error.message).toMatch(/^bosun serve \(pid none\) could not start: spawn .* ENOENT/)
  })
})
