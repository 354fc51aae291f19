import { beforeAll, describe } from 'vitest'
import { GUARD_PLUGIN, bosun, it, requireBuild, writeProject } from './helpers.js'

beforeAll(requireBuild)


describe.concurrent('bosun --help and errors', () => {
  it('--help lists every command, with examples and the exit codes', async ({ dir, expect }) => {
    const result = await bosun(['--help'], { cwd: dir })
    expect(result.code).toBe(0)
    for (const command of ['init', 'run', 'chat', 'resume', 'sessions', 'log', 'config', 'plugins']) expect(result.stdout).toMatch(new RegExp(`\\n  ${command} `))
    expect(result.stdout).toContain('Examples:\n  $ bosun run "hello"')
    expect(result.stdout).toContain('Exit codes: 0 completed, 1 error, 2 usage, 3 blocked, 4 stalled, 130 aborted (143 by SIGTERM, 129 by SIGHUP: the terminal closed).')
  })

  it('bosun <command> --help shows its usage, examples and the global options', async ({ dir, expect }) => {
    const commands = [['init'], ['run'], ['chat'], ['resume'], ['sessions', 'list'], ['sessions', 'show'], ['sessions', 'fork'], ['log'], ['config', 'check'], ['plugins'], ['plugins', 'search'], ['plugins', 'info'], ['plugins', 'add'], ['plugins', 'remove']]
    const results = await Promise.all(commands.map((command) => bosun([...command, '--help'], { cwd: dir })))
    results.forEach((result, index) => {
      const command = commands[index]!.join(' ')
      expect(result.code, command).toBe(0)
      expect(result.stdout, command).toMatch(new RegExp(`^Usage: bosun ${command} `))
      expect(result.stdout, command).toContain('Examples:\n  $ bosun')
      expect(result.stdout, command).toContain('--config <file>')
    })
  })

  it('bosun help [command] is --help: the program\'s, or the command\'s (it was "unknown command \'help\'", exit 2)', async ({ dir, expect }) => {
    const [help, helpRun, helpFork, flag, runFlag] = await Promise.all([
      bosun(['help'], { cwd: dir }),
      bosun(['help', 'run'], { cwd: dir }),
      bosun(['help', 'sessions', 'fork'], { cwd: dir }),
      bosun(['--help'], { cwd: dir }),
      bosun(['run', '--help'], { cwd: dir }),
    ])
    expect(help).toMatchObject({ code: 0, stdout: flag.stdout, stderr: '' })
    expect(helpRun).toMatchObject({ code: 0, stdout: runFlag.stdout, stderr: '' })
    expect(helpFork.code).toBe(0)
    expect(helpFork.stdout).toMatch(/^Usage: bosun sessions fork /)
  })

  it('sessions fork --help gives the default the command has: the last turn that ended, a blocked one included', async ({ dir, expect }) => {
    await writeProject(dir, { plugins: ['./guard.mjs'] }, { 'guard.mjs': GUARD_PLUGIN })
    expect((await bosun(['run', '--session', 'a', 'hello'], { cwd: dir })).code).toBe(0)
    expect((await bosun(['run', '--session', 'a', 'forbidden'], { cwd: dir })).code).toBe(3)
    const [help, fork] = await Promise.all([bosun(['sessions', 'fork', '--help'], { cwd: dir }), bosun(['sessions', 'fork', 'a', '--id', 'b'], { cwd: dir })])
    expect(fork.stderr).toContain('forked a after turn 2 as b')
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('fork after turn <n> (default: the last turn that ended: completed, aborted, blocked or failed)')
    expect(help.stdout).not.toContain('completed turn')
  })

  it('an unknown command or option is a usage error (exit 2), with a suggestion', async ({ dir, expect }) => {
    const [unknown, option, missing] = await Promise.all([
      bosun(['sesions'], { cwd: dir }),
      bosun(['run', '--jsn', 'hi'], { cwd: dir }),
      bosun(['log'], { cwd: dir }),
    ])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^error USAGE: unknown command 'sesions'\n\(Did you mean sessions\?\)/)
    expect(option.code).toBe(2)
    expect(option.stderr).toMatch(/^error USAGE: unknown option '--jsn'\n\(Did you mean --json\?\)/)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe("error USAGE: missing required argument 'id'\n")
  })

  it('bosun with no command prints the help on stderr and exits 2 (a usage error)', async ({ dir, expect }) => {
    const bare = await bosun([], { cwd: dir })
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain('Usage: bosun [options] [command]')
    expect(bare.stdout).toBe('')
  })

  it('run with no prompt and nothing piped in says how to give one', async ({ dir, expect }) => {
    const result = await bosun(['run'], { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('error USAGE: give a prompt: bosun run "<prompt>" (or pipe it in). See bosun run --help.\n')
  })

  it('--version prints the version', async ({ dir, expect }) => {
    const result = await bosun(['--version'], { cwd: dir })
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/) })
  })

  it('colour is off when the output is not a terminal and with NO_COLOR; FORCE_COLOR turns it on', async ({ dir, expect }) => {
    const [plain, forced, both, flag] = await Promise.all([
      bosun(['log', 'nope'], { cwd: dir }),
      bosun(['log', 'nope'], { cwd: dir, env: { FORCE_COLOR: '1' } }),
      bosun(['log', 'nope'], { cwd: dir, env: { FORCE_COLOR: '1', NO_COLOR: '1' } }),
      bosun(['log', 'nope', '--no-color'], { cwd: dir, env: { FORCE_COLOR: '1' } }),
    ])
    expect(plain.stderr).not.toContain('\u001b[')
    expect(forced.stderr).toContain('\u001b[31m')
    expect(both.stderr).not.toContain('\u001b[')
    expect(flag.stderr).not.toContain('\u001b[')
    // A usage error too, though it is reported before the options are parsed.
    const usage = await bosun(['--no-color', 'rnu'], { cwd: dir, env: { FORCE_COLOR: '1' } })
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/^error USAGE: unknown command 'rnu'/)
  })
})
