#!/usr/bin/env node
// The `bosun` command. The only place that ends the process: `main` resolves with the exit code,
// and an agent's store, timers or the chat's readline must not keep the process alive after it.
import { reportStall } from './stall.js'

const argv = process.argv.slice(2)
// Node ends a process whose event loop is empty even while `main` is pending (exit 13, silently):
// what `main` awaits can then never settle. Say what it was, and exit with the documented code.
process.once('beforeExit', () => void reportStall({ stderr: process.stderr, env: process.env }, argv).then((stalled) => process.exit(stalled)))
const code = await run(argv)
// Let buffered output (a pipe on some platforms) drain before exiting.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()))
// After a SIGHUP (stop-signals.ts: the session is closed by now), the process ends as one killed by it:
// process.exit would restore the terminal's modes on the way out, and Node aborts with an assertion
// when the terminal is gone (tcsetattr fails with EIO). The signal's default action is that exit.
if (code === 129 && process.listenerCount('SIGHUP') === 0) process.kill(process.pid, 'SIGHUP')
process.exit(code)

/**
 * `bosun --version` (or `-v`) alone is answered before commander and the commands' table load —
 * the same line and exit code commander gives it: a script that asks for the version on every
 * call does not pay for the rest (docs/benchmarks.md, "The CLI's start").
 */
async function run(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    const [{ cliVersion }, { processIo }] = await Promise.all([import('./packages.js'), import('./io.js')])
    // processIo(): a reader that went away (EPIPE) is no crash here either.
    processIo().stdout.write(`${cliVersion()}\n`)
    return 0
  }
  const { main } = await import('./program.js')
  return main(argv)
}
