// Usage errors that left the user guessing (review V1): a word after a command group that is none
// of its commands was reported as too many arguments for the group's default command, and
// `--limit` had two rules — "0 or more" for a word, then "1 or more" for 0.
import { beforeAll, describe } from 'vitest'
import { bosun, it, requireBuild } from './helpers.js'

beforeAll(requireBuild)

describe.concurrent('usage errors say one thing, about what was typed', () => {
  it('a word after config, sessions or plugins that is none of their commands: unknown command, with a suggestion', async ({ dir, expect }) => {
    const [config, typo, sessions, plugins] = await Promise.all([
      bosun(['config', 'foo'], { cwd: dir }),
      bosun(['config', 'chek'], { cwd: dir }),
      bosun(['sessions', 'foo'], { cwd: dir }),
      bosun(['plugins', 'serch'], { cwd: dir }),
    ])
    expect(config.code).toBe(2)
    expect(config.stderr).toBe("error USAGE: unknown command 'foo' for 'bosun config' (its commands: check).\n")
    expect(typo.stderr).toMatch(/^error USAGE: unknown command 'chek' for 'bosun config' \(its commands: check\)\.\n\(Did you mean check\?\)\n$/)
    expect(sessions.stderr).toBe("error USAGE: unknown command 'foo' for 'bosun sessions' (its commands: list, show, fork, rm, resume).\n")
    expect(plugins.code).toBe(2)
    expect(plugins.stderr).toMatch(/^error USAGE: unknown command 'serch' for 'bosun plugins' \(its commands: list, search, info, add, remove\)\.\n\(Did you mean search\?\)\n$/)
  })

  it('--limit takes a whole number of 1 or more, and says so once, for a word and for 0 alike', async ({ dir, expect }) => {
    const [word, zero] = await Promise.all([bosun(['plugins', 'search', '--limit', 'abc'], { cwd: dir }), bosun(['plugins', 'search', '--limit', '0'], { cwd: dir })])
    const rule = "error USAGE: option '--limit <n>' argument 'abc' is invalid. must be a whole number, 1 or more (--all lists every package found).\n"
    expect(word).toMatchObject({ code: 2, stderr: rule })
    expect(zero).toMatchObject({ code: 2, stderr: rule.replace("'abc'", "'0'") })
  })
})
