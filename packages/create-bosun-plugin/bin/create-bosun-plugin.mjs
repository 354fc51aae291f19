#!/usr/bin/env node
// The `create-bosun-plugin` command (`pnpm create bosun-plugin <name>`). It runs the built CLI;
// in the Bosun workspace, `pnpm build` first. This is the only place that sets the exit code.
let cli
try {
  cli = await import('../dist/cli.js')
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('cli.js')) throw error
  process.stderr.write('create-bosun-plugin is not built: run `pnpm build` in the Bosun workspace first.\n')
  process.exit(1)
}
process.exitCode = await cli.main(process.argv.slice(2))
