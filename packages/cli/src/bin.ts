#!/usr/bin/env node
// The `bosun` command. The only place that ends the process: `main` resolves with the exit code,
// and an agent's store, timers or the chat's readline must not keep the process alive after it.
import { main } from './program.js'
import { reportStall } from './stall.js'

const argv = process.argv.slice(2)
// Node ends a process whose event loop is empty even while `main` is pending (exit 13, silently):
// what `main` awaits can then never settle. Say what it was, and exit with the documented code.
process.once('beforeExit', () => void reportStall({ stderr: process.stderr, env: process.env }, argv).then((stalled) => process.exit(stalled)))
const code = await main(argv)
// Let buffered output (a pipe on some platforms) drain before exiting.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()))
process.exit(code)
