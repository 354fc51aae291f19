#!/usr/bin/env node
// The `bosun` command. The only place that ends the process: `main` resolves with the exit code,
// and an agent's store, timers or the chat's readline must not keep the process alive after it.
import { main } from './program.js'

const code = await main(process.argv.slice(2))
// Let buffered output (a pipe on some platforms) drain before exiting.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()))
process.exit(code)
