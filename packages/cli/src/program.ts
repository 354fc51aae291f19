import { Command, CommanderError, Option } from 'commander'
import { createContext, type CommandContext } from './context.js'
import { ExitCode } from './exit-codes.js'
import { processIo, type Io } from './io.js'
import { examples } from './help-examples.js'
import { addInitCommand } from './init/command-line.js'
import { limitCount, nonNegativeInteger, optionPairs } from './option-values.js'
import { createStyle, colorEnabled } from './output.js'
import { cliVersion } from './packages.js'
import { refuseUnknownWords } from './unknown-words.js'

/**
 * Runs the `bosun` command line and resolves with the exit code. Never exits the process and
 * never throws: errors are printed (a coded message; the stack only with `--debug`).
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2))
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const result = { code: ExitCode.ok as number }
  const program = createProgram(io, result, !argv.includes('--no-color'))
  try {
    // `bosun help [command…]`, as git, npm and cargo take it: the command's --help (it was "unknown command 'help'").
    const words = argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv
    await program.parseAsync([...words], { from: 'user' })
    return result.code
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with a CommanderError too (exit 0). Help shown because no command
      // was given (`bosun` alone) is a usage error: 2, as documented.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return error.exitCode
      return ExitCode.usage
    }
    // Loaded here, not at the top: `--help` and usage errors should not pay for loading the core.
    const { BosunError } = await import('@bosun/core')
    const { CliErrorCodes, describeError, writeError } = await import('./errors.js')
    const noColor = argv.includes('--no-color')
    const shown = BosunError.is(error, 'STORE') ? await storeHinted(error, io) : error
    // An error's message can carry session text (a provider's reply, a plugin's words): shown, never sent raw.
    writeError(io.stderr, describeError(shown, createStyle(colorEnabled(io.stderr, io.env, !noColor)), argv.includes('--debug')))
    return BosunError.is(error, CliErrorCodes.USAGE) ? ExitCode.usage : ExitCode.error
  }
}

/** A store error with what to change where its folder came from (the config's store, or the default), once a config was loaded. */
async function storeHinted(error: unknown, io: Io): Promise<unknown> {
  const [{ loadedConfigOf }, { withStoreHint }] = await Promise.all([import('./agent.js'), import('./store-hint.js')])
  const cfg = loadedConfigOf(io)
  return cfg === undefined ? error : withStoreHint(error, cfg)
}

/** The commander program: every command, its options, help texts with examples. */
export function createProgram(io: Io, result: { code: number }, color = true): Command {
  const program = new Command('bosun')
  // Usage errors are written before the options are parsed: `--no-color` is read from argv.
  const style = createStyle(colorEnabled(io.stderr, io.env, color))
  program
    .description('Run and inspect Bosun agents. With no config it works offline: scripted model, sessions in .bosun/sessions.')
    .version(cliVersion(), '-v, --version', 'print the version')
    .option('-c, --config <file>', 'use this config file instead of searching for bosun.config.* from the current folder up')
    .option('--debug', 'print stack traces of errors; a failed turn also shows its HTTP requests (URL, status, time; never the key)')
    .option('--no-color', 'no colours (also: NO_COLOR=1; there is no colour when the output is not a terminal)')
    .helpOption('-h, --help', 'show help')
    .configureHelp({ showGlobalOptions: true })
    .addHelpCommand(false)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`${style.red(style.bold('error'))} ${style.bold('USAGE')}: ${text.replace(/^error: /, '')}`),
    })
    .addHelpText('after', examples([
      ['bosun run "hello"', 'one turn, offline with no config (the scripted model echoes)'],
      ['bosun init', 'write bosun.config.ts to start from: the offline default, and where a real model goes'],
      ['bosun chat', 'interactive chat; typing while it works queues a follow-up'],
      ['bosun sessions list', 'the sessions in .bosun/sessions'],
      ['bosun log <id>', 'a session\'s timeline'],
      ['bosun config check', 'check the config and show the agent it composes'],
    ], 'Docs: docs/cli.md. Exit codes: 0 completed, 1 error, 2 usage, 3 blocked, 4 stalled, 130 aborted (143 by SIGTERM, 129 by SIGHUP: the terminal closed).'))

  // Command modules load on use, so that `--help` does not pay for the config loader and the stores.
  type Action = (ctx: CommandContext, ...args: any[]) => Promise<number>
  const run = (load: () => Promise<Action>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command
      const action = await load()
      result.code = await action(createContext(io, command.optsWithGlobals()), ...args.slice(0, -1))
    }
  const commands = {
    init: async () => (await import('./commands/init.js')).initCommand,
    run: async () => (await import('./commands/run.js')).runCommand,
    chat: async () => (await import('./commands/chat.js')).chatCommand,
    resume: async () => (await import('./commands/resume.js')).resumeCommand,
    list: async () => (await import('./commands/sessions.js')).sessionsListCommand,
    show: async () => (await import('./commands/sessions.js')).sessionsShowCommand,
    fork: async () => (await import('./commands/sessions.js')).sessionsForkCommand,
    remove: async () => (await import('./commands/sessions-remove.js')).sessionsRemoveCommand,
    log: async () => (await import('./commands/log.js')).logCommand,
    config: async () => (await import('./commands/config.js')).configCheckCommand,
    plugins: async () => (await import('./commands/plugins.js')).pluginsCommand,
    pluginsSearch: async () => (await import('./commands/plugins-search.js')).pluginsSearchCommand,
    pluginsInfo: async () => (await import('./commands/plugins-info.js')).pluginsInfoCommand,
    pluginsAdd: async () => (await import('./commands/plugins-add.js')).pluginsAddCommand,
    pluginsRemove: async () => (await import('./commands/plugins-remove.js')).pluginsRemoveCommand,
    serve: async () => (await import('./commands/serve.js')).serveCommand,
    acp: async () => (await import('./commands/acp.js')).acpCommand,
  }

  addInitCommand(program, run(commands.init))

  program
    .command('run')
    .description('run one turn: stream the answer to stdout; tool calls and results go to stderr')
    .argument('[prompt]', 'the message (read from stdin when omitted and stdin is not a terminal)')
    .option('-s, --session <id>', 'continue this session (created with this id if it does not exist)')
    .option('--json', 'print the session events of this run as JSON lines instead of the answer')
    .addHelpText('after', examples([
      ['bosun run "hello"', 'a new session; its id is printed on stderr at the end'],
      ['bosun run --session 20260312-142205-k3f9 "and then?"', 'continue a session'],
      ['bosun run --json "hi" | jq -c \'select(.type=="turn/end")\'', 'events for scripts'],
      ['echo "summarise this" | bosun run', 'the prompt from stdin'],
    ], 'Exit code: 0 completed (also max-tokens, with a warning), 1 error, 2 usage (no prompt, an unknown option), 3 blocked by a plugin, 4 stalled (a wait that can never end), 130 aborted (Ctrl+C), 143 aborted by SIGTERM, 129 by SIGHUP (the terminal closed).'))
    .action(run(async () => async (ctx, prompt: string | undefined, options) => (await commands.run())(ctx, await promptFrom(ctx, prompt), options)))

  program
    .command('chat')
    .description('interactive chat: the answer streams, lines typed meanwhile are queued, /steer steers')
    .option('-s, --session <id>', 'chat on this session (created with this id if it does not exist)')
    .option('--raw', 'print the model\'s answers as they are, without rendering their Markdown (a terminal renders it by default)')
    .addHelpText('after', examples([
      ['bosun chat', 'a new session'],
      ['bosun chat --config staging.yaml', 'with another config'],
    ], 'In the chat: Enter sends (queued while the agent works), /steer <text>, /queue, /drop <n>, /compact, /fork, /help.\nCtrl+C aborts the running turn (queued messages are kept); a second Ctrl+C or Ctrl+D exits.'))
    .action(run(commands.chat))

  program
    .command('resume')
    .description('chat on an existing session; what is still queued is shown, and Enter runs it')
    .argument('<id>', 'the session id')
    .option('--raw', 'print the model\'s answers as they are, without rendering their Markdown')
    .addHelpText('after', examples([['bosun resume 20260312-142205-k3f9', 'continue where you left off']]))
    .action(run(commands.resume))

  const sessions = program.command('sessions').description('list, show, fork and remove stored sessions')
  sessions
    .command('list', { isDefault: true })
    .description('every session: id, a fork\'s parent, created, turns, last activity, first prompt')
    .option('--json', 'one JSON object per session')
    .option('--tree', 'subagents\' children nested under their parents')
    .addHelpText('after', examples([['bosun sessions list', ''], ['bosun sessions list --tree', 'who delegated to whom'], ['bosun sessions list --json', 'for scripts']]))
    .action(run(commands.list))
  sessions
    .command('show')
    .description('one session: its turns, how each ended, and what is still queued')
    .argument('<id>', 'the session id')
    .option('--json', 'as one JSON object')
    .addHelpText('after', examples([['bosun sessions show 20260312-142205-k3f9', '']]))
    .action(run(commands.show))
  sessions
    .command('fork')
    .description('a new session seeded with this one up to the end of a turn; prints its id')
    .argument('<id>', 'the session to fork')
    .addOption(new Option('--at-turn <n>', 'fork after turn <n> (default: the last turn that ended: completed, aborted, blocked or failed)').argParser(nonNegativeInteger))
    .option('--id <new-id>', 'the new session\'s id (default: a fresh one)')
    .addHelpText('after', examples([
      ['bosun sessions fork 20260312-142205-k3f9', 'after its last turn that ended'],
      ['bosun sessions fork 20260312-142205-k3f9 --at-turn 2', 'try another answer to turn 3'],
    ]))
    .action(run(commands.fork))
  sessions
    .command('rm')
    .alias('remove')
    .description('remove sessions for good, each with its subagent children (it lists them and asks first)')
    .argument('<id...>', 'the sessions to remove')
    .option('-y, --yes', 'do not ask (needed when stdin is not a terminal)')
    .option('--json', 'print the removed ids as {"removed": [ids]}')
    .addHelpText('after', examples([
      ['bosun sessions rm 20260312-142205-k3f9', 'lists it and its subagent children, asks, removes'],
      ['bosun sessions rm old-1 old-2 --yes --json', 'for scripts: no question, the removed ids on stdout'],
    ], 'A subagent\'s child whose parent is still stored is refused (CHILD_SESSION): remove the parent. Forks are copies: they stay.'))
    .action(run(commands.remove))
  sessions
    .command('resume')
    .description('the same as `bosun resume <id>`')
    .argument('<id>', 'the session id')
    .action(run(commands.resume))

  program
    .command('log')
    .description('a session\'s timeline: turns, steps, messages, tool calls, retries, rejections, compactions')
    .argument('<id>', 'the session id')
    .option('--json', 'the raw events, one JSON object per line')
    .option('-f, --follow', 'keep printing new events as the session grows (Ctrl+C stops)')
    .option('--all', 'every event in the core\'s one-line form, chunks included, with its seq')
    .addHelpText('after', examples([
      ['bosun log 20260312-142205-k3f9', ''],
      ['bosun log 20260312-142205-k3f9 --follow', 'watch a chat running in another terminal'],
      ['bosun log 20260312-142205-k3f9 --json | jq .type', 'the raw events'],
    ]))
    .action(run(commands.log))

  const config = program.command('config').description('check the config')
  config
    .command('check', { isDefault: true })
    .description('load and check the config: every problem with its file and path, or a summary of the agent it composes')
    .addHelpText('after', examples([
      ['bosun config check', 'the config found from here up (or the defaults)'],
      ['bosun config check --config configs/prod.yaml', 'a given file'],
    ]))
    .action(run(commands.config))

  const plugins = program
    .command('plugins')
    .description('Bosun plugins: the installed ones, and the registry\'s (search, info, add, remove; docs/marketplace.md)')
    .addHelpText('after', examples([
      ['bosun plugins', 'the installed ones'],
      ['bosun plugins search guard', 'on the npm registry your .npmrc names'],
      ['bosun plugins info word-guard', 'kind, hooks, options, core range, license; nothing installed'],
      ['bosun plugins add word-guard -o words=password', 'install, add to the config, check it'],
      ['bosun plugins remove word-guard', 'out of the config, then uninstalled'],
    ]))
  plugins
    .command('list', { isDefault: true })
    .description('installed Bosun plugins (keyword "bosun-plugin" in node_modules from here up): name, version, hooks')
    .option('--json', 'one JSON object per plugin')
    .addHelpText('after', examples([['bosun plugins', ''], ['bosun plugins --json', 'for scripts']]))
    .action(run(commands.plugins))
  plugins
    .command('search')
    .description('Bosun plugins, adapters and stores on the npm registry your .npmrc names (keywords bosun-plugin, bosun-adapter, bosun-store)')
    .argument('[words...]', 'words to look for in names and descriptions')
    .option('--json', 'one JSON object per package (every one found, unless --limit)')
    .option('--registry <url>', 'search this registry instead of the one npm is configured with')
    .addOption(new Option('--limit <n>', 'list the first <n> found, 1 or more (default: 50 in the table)').argParser(limitCount))
    .option('--all', 'list every package found (each one is a request for its hooks)')
    .addHelpText('after', examples([['bosun plugins search', 'the first 50 Bosun packages'], ['bosun plugins search guard', 'matching "guard"'], ['bosun plugins search --all', 'every one']]))
    .action(run(commands.pluginsSearch))
  plugins
    .command('info')
    .description('a package\'s manifest from the registry, nothing installed: kind, hooks, options, @bosun/core range, license, install scripts')
    .argument('<name>', 'the package (word-guard, bosun-plugin-word-guard, @acme/bosun-plugin-x@1.2.0)')
    .option('--json', 'as one JSON object')
    .option('--registry <url>', 'read from this registry instead of the one npm is configured with')
    .addHelpText('after', examples([['bosun plugins info @bosun/plugin-rate-limit', ''], ['bosun plugins info word-guard', 'bosun-plugin-word-guard']]))
    .action(run(commands.pluginsInfo))
  plugins
    .command('add')
    .description('install a plugin with the project\'s package manager and add it to the config (options checked first), then check the config')
    .argument('<name>', 'the package (word-guard, bosun-plugin-word-guard, @acme/bosun-plugin-x@1.2.0)')
    .option('-o, --option <key=value>', 'an option of the plugin, converted by its schema type (lists comma-separated); one -o for each option', optionPairs)
    .option('-y, --yes', 'do not ask before installing')
    .option('--registry <url>', 'install from this registry instead of the one npm is configured with')
    .addHelpText('after', examples([
      ['bosun plugins add word-guard --option words=password,secret', 'asks before installing'],
      ['bosun plugins add @bosun/plugin-rate-limit -o turnsPerMinute=20 -o onLimit=requeue --yes', 'no question'],
    ], 'It shows the package, version, dependencies, install scripts and license, and asks before installing unless --yes.'))
    .action(run(commands.pluginsAdd))
  plugins
    .command('remove')
    .description('remove a plugin from the config and uninstall it with the project\'s package manager')
    .argument('<name>', 'the plugin as the config names it, or its package')
    // Scripts pass --yes to add and remove alike: remove asks nothing (nothing new is installed).
    .option('-y, --yes', 'accepted as for add; remove asks nothing')
    .addHelpText('after', examples([['bosun plugins remove word-guard', ''], ['bosun plugins remove word-guard --yes', 'the same; --yes is accepted for scripts that pass it to add too']]))
    .action(run(commands.pluginsRemove))

  program
    .command('serve')
    .description('serve the config\'s sessions over HTTP + SSE (docs/host.md) until Ctrl+C, SIGTERM or SIGHUP')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4477')
    .option('--host <address>', 'address to bind; anything but loopback needs BOSUN_HOST_TOKEN', '127.0.0.1')
    .option('--grace-ms <ms>', 'on shutdown, how long running turns may finish before they are aborted', '5000')
    .option('--token-file <file>', 'require the bearer token in this file (mode 0600) instead of BOSUN_HOST_TOKEN')
    .option('--init-token', 'write a new random token to --token-file (default .bosun/host-token, mode 0600) and exit')
    .option('--cors <origin...>', 'allow browsers on these origins (e.g. https://app.example.com) to call the host; none by default')
    .option('--allowed-host <name...>', 'host names the Host fence accepts besides loopback (e.g. a reverse proxy\'s name); with a token, only these and loopback')
    .option('--trusted-proxy <address...>', 'reverse proxies (addresses or CIDR blocks, e.g. 127.0.0.1) whose X-Forwarded-For and X-Forwarded-Proto the host believes; none by default')
    .option('--relay-wait-ms <ms>', 'on a PostgreSQL store (many hosts): how long a request for a session another host owns waits for that host\'s answer before it is answered "pending"', '5000')
    .option('--relay-run-ms <ms>', 'on a PostgreSQL store (many hosts): how long this host, owning a session, lets a request relayed from another host run before it answers it 503 and carries out the session\'s next mail', '30000')
    .option('--cluster-poll-ms <ms>', 'on a PostgreSQL store (many hosts): how often to look for a dead host\'s sessions and for mail a lost NOTIFY left', '1000')
    .option('--takeover-concurrency <n>', 'on a PostgreSQL store (many hosts): how many of a dead host\'s sessions this host opens at once (keep it below the store\'s poolSize)', '8')
    .addHelpText('after', examples([
      ['bosun serve', 'http://127.0.0.1:4477'],
      ['BOSUN_HOST_TOKEN=$(openssl rand -hex 32) bosun serve --host 0.0.0.0', 'reachable from the network, with a bearer token'],
      ['bosun serve --init-token && bosun serve --host 0.0.0.0 --token-file .bosun/host-token', 'the token kept in a file'],
      ['BOSUN_HOST_TOKEN=… bosun serve --trusted-proxy 127.0.0.1', 'behind a TLS reverse proxy on this machine'],
    ]))
    .action(run(commands.serve))

  program
    .command('acp')
    .description('run the config\'s sessions as an Agent Client Protocol agent on stdio (for editors such as Zed)')
    .addHelpText('after', examples([['bosun acp', 'started by the editor; it speaks ACP on stdin/stdout']]))
    .action(run(commands.acp))

  for (const group of [sessions, config, plugins]) refuseUnknownWords(group)
  return program
}

/** The prompt argument, or stdin when it is omitted and stdin is not a terminal. */
async function promptFrom(ctx: CommandContext, prompt: string | undefined): Promise<string> {
  if (prompt !== undefined && prompt.trim() !== '') return prompt
  if (prompt === undefined && ctx.io.stdin.isTTY !== true) {
    let text = ''
    for await (const chunk of ctx.io.stdin) text += String(chunk)
    if (text.trim() !== '') return text.trim()
  }
  const { CliErrorCodes, cliError } = await import('./errors.js')
  throw cliError(CliErrorCodes.USAGE, 'give a prompt: bosun run "<prompt>" (or pipe it in). See bosun run --help.')
}
