import { readFileSync } from 'node:fs'
import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect } from 'vitest'
import { BIN, it, requireBuild, waitFor } from './helpers.js'
import { runInPty } from './pty.js'

beforeAll(requireBuild)

// docs/cli.md says how to keep `bosun serve` running after the terminal it was started from closes.
// Checked here as a user does it: an interactive bash in a real pty, the documented command typed
// into it, the terminal closed (the kernel hangs up on bash, which passes SIGHUP on to its jobs),
// then the host asked on its port. `nohup` does not do it (Node resets the ignored SIGHUP when it
// starts, and bosun stops on SIGHUP as on SIGTERM); `setsid -f` does: the host runs in a session
// of its own, with no controlling terminal, so nothing hangs up on it.

/** A `bosun` on PATH that notes its pid (sh execs node: the same process) so the test can stop it. */
async function bosunOnPath(dir: string): Promise<Record<string, string>> {
  await writeFile(join(dir, 'bosun'), `#!/bin/sh\necho $$ > "$PWD/bosun.pid"\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`)
  await chmod(join(dir, 'bosun'), 0o755)
  return { PATH: `${dir}:${process.env.PATH ?? ''}`, PS1: 'pty$ ', HISTFILE: join(dir, '.history') }
}

/** Types `command` into an interactive bash in a pty, shows the host's log until its URL, then closes the terminal. */
async function typeThenCloseTerminal(dir: string, command: string): Promise<string> {
  const result = await runInPty([], [
    { expect: 'pty\\$' },
    { send: `${command}\r` },
    { expect: 'listening on http://127\\.0\\.0\\.1:\\d+' },
    { hangup: true },
  ], { cwd: dir, argv: ['bash', '--norc', '--noprofile', '-i'], env: await bosunOnPath(dir) })
  expect(result.error).toBe(null)
  return /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(result.screen)![1]!
}

/** Whether the process runs (a zombie waiting for its reaper does not). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z'
  } catch {
    return false
  }
}

const log = (dir: string) => readFile(join(dir, 'serve.log'), 'utf8').catch(() => '')
const pidOf = async (dir: string) => Number((await readFile(join(dir, 'bosun.pid'), 'utf8')).trim())

async function stopHost(dir: string): Promise<void> {
  const pid = await pidOf(dir).catch(() => undefined)
  if (pid === undefined || !running(pid)) return
  process.kill(pid, 'SIGTERM')
  await waitFor(() => !running(pid), 'the host to stop')
}

describe('bosun serve started from a terminal that then closes', () => {
  it('setsid -f bosun serve … > serve.log 2>&1 < /dev/null: the host keeps serving, in a session of its own; kill stops it gracefully', async ({ dir }) => {
    try {
      const url = await typeThenCloseTerminal(dir, 'setsid -f bosun serve --port 0 > serve.log 2>&1 < /dev/null; tail -n +1 -F serve.log')
      const pid = await pidOf(dir)
      // /proc/<pid>/stat after the command name: state, ppid, pgrp, session, tty_nr.
      const [, , , session, tty] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      expect({ session: Number(session), tty: Number(tty) }).toEqual({ session: pid, tty: 0 })
      expect((await fetch(`${url}/v1/host`)).status).toBe(200)
      expect((await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"after-hangup"}' })).status).toBe(201)
      // A hangup would have been handled by now, a whole request later: the host did not begin to stop.
      expect(await log(dir)).not.toContain('stopping')
      expect((await fetch(`${url}/v1/host`)).status).toBe(200)
      process.kill(pid, 'SIGTERM')
      await waitFor(() => !running(pid), 'the host to stop')
      expect(await log(dir)).toMatch(/\nstopping: .*\nstopped\n$/s)
    } finally {
      await stopHost(dir)
    }
  })

  it('nohup bosun serve … &: the closed terminal stops the host (SIGHUP, as docs/cli.md says)', async ({ dir }) => {
    try {
      const url = await typeThenCloseTerminal(dir, 'nohup bosun serve --port 0 > serve.log 2>&1 & tail -n +1 -F serve.log')
      const pid = await pidOf(dir)
      await waitFor(() => !running(pid), 'the host to stop')
      expect(await log(dir)).toMatch(/\nstopping: .*\nstopped\n$/s)
      await expect(fetch(`${url}/v1/host`)).rejects.toThrow()
    } finally {
      await stopHost(dir)
    }
  })
})
