import { Option, type Command } from 'commander'
import { examples } from '../help-examples.js'

/** `bosun init`'s command line: its options and help; `action` runs the command (loaded on use). */
export function addInitCommand(program: Command, action: (...args: unknown[]) => Promise<void>): void {
  program
    .command('init')
    .description('write a config to start from in the current folder: the offline default, with comments on where a real model and plugins go')
    .addOption(new Option('--format <format>', 'the file to write: ts (bosun.config.ts), json (bosun.config.json) or yaml (bosun.config.yaml)').choices(['ts', 'json', 'yaml']).default('ts'))
    .option('--force', 'replace the config found in the current folder (every bosun.config.*, .bosunrc* there is removed)')
    .addHelpText('after', examples([
      ['bosun init', 'bosun.config.ts'],
      ['bosun init --format yaml', 'bosun.config.yaml'],
      ['bosun init --force', 'start over: replace the config here'],
    ], 'It never writes a key: the comments name the environment variable each provider reads.\nIt refuses when a config is already here (exit 1, CONFIG_EXISTS); a package.json "bosun" key is not replaced even with --force.'))
    .action(action)
}
