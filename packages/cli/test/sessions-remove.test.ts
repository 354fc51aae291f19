import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { LOG_FORMAT_VERSION, createAgent, forkSession, type Delegation } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { bosun, it, requireBuild, writeProject } from './helpers.js'
import { Keys, runInPty } from './pty.js'

beforeAll(requireBuild)

const sessionsDir = (dir: string) => join(dir, '.bosun/sessions')

/**
 * In the JSONL store the CLI uses: `root` (one completed turn) with a subagent child `child` and a
 * grandchild `grandchild` (headers naming their parents, as the subagents plugin writes them),
 * `other` on its own, and `root-fork`, a fork of `root` (a copy: it stays when root goes).
 */
async function storedTree(dir: string): Promise<void> {
  const store = jsonlStore({ dir: sessionsDir(dir) })
  const agent = await createAgent({ model: scripted(), store, sessionId: 'root' })
  agent.followup('plan the release')
  await agent.whenIdle()
  await agent.close()
  const delegation = (parentSessionId: string, depth: number): Delegation => ({ parentSessionId, callId: `call-${depth}`, depth, mode: 'continuable' })
  for (const [id, header] of [
    ['child', { delegation: delegation('root', 1) }],
    ['grandchild', { delegation: delegation('child', 2) }],
    ['other', {}],
  ] as const) {
    const created = await store.create({ id, version: LOG_FORMAT_VERSION, createdAt: Date.now(), ...header })
    await created.writer.close()
  }
  await (await forkSession(store, 'root', { id: 'root-fork' })).writer.close()
  await store.close()
}

/** The session ids `bosun sessions list --json` lists. */
async function listed(dir: string): Promise<string[]> {
  const result = await bosun(['sessions', 'list', '--json'], { cwd: dir })
  return result.stdout.trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id: string }).id).sort()
}

describe.concurrent('bosun sessions rm', () => {
  it('--yes --json removes a session with its subagent children, root first, and their files; a fork and the others stay', async ({ dir, expect }) => {
    await storedTree(dir)
    const result = await bosun(['sessions', 'rm', 'root', '--yes', '--json'], { cwd: dir })
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(result.stdout)).toEqual({ removed: ['root', 'child', 'grandchild'] })
    expect(await listed(dir)).toEqual(['other', 'root-fork'])
    // Nothing of them is left in the folder: no log, no summary beside it.
    expect((await readdir(sessionsDir(dir))).filter((name) => /^(root|child|grandchild)\./.test(name))).toEqual([])
    // The fork is whole: it still reads, its copied turn with it.
    const fork = await bosun(['sessions', 'show', 'root-fork', '--json'], { cwd: dir })
    expect(JSON.parse(fork.stdout)).toMatchObject({ id: 'root-fork', parent: 'root', turns: 1 })
  })

  it('says what it removed on stderr; several ids at once, one named twice or under another removed once', async ({ dir, expect }) => {
    await storedTree(dir)
    const result = await bosun(['sessions', 'rm', 'child', 'root', 'other', 'other', '--yes'], { cwd: dir })
    expect(result).toMatchObject({ code: 0, stdout: '' })
    expect(result.stderr).toBe('Removed root, child, grandchild, other from .bosun/sessions (JSONL).\n')
    expect(await listed(dir)).toEqual(['root-fork'])
  })

  it('refuses without a terminal and without --yes (usage, exit 2), and removes nothing', async ({ dir, expect }) => {
    await storedTree(dir)
    const result = await bosun(['sessions', 'rm', 'root'], { cwd: dir, input: 'y\n' })
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(result.stderr).toBe('error USAGE: bosun sessions rm asks before it removes 3 sessions, and stdin is not a terminal to answer: pass --yes to remove root with its subagent children without asking.\n')
    expect(await listed(dir)).toEqual(['child', 'grandchild', 'other', 'root', 'root-fork'])
  })

  it('refuses a subagent child whose parent is stored (CHILD_SESSION, naming the parent to remove), and removes nothing', async ({ dir, expect }) => {
    await storedTree(dir)
    const result = await bosun(['sessions', 'rm', 'other', 'grandchild', '--yes'], { cwd: dir })
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe('error CHILD_SESSION: Session "grandchild" is a subagent child of session "child", which is still stored: remove "child" (`bosun sessions rm child`), which removes its children with it. Nothing was removed.\n')
    expect(await listed(dir)).toEqual(['child', 'grandchild', 'other', 'root', 'root-fork'])
  })

  it('an unknown id: SESSION_NOT_FOUND with the stored id it is nearest to, and nothing removed (sessions show says the same)', async ({ dir, expect }) => {
    await storedTree(dir)
    const result = await bosun(['sessions', 'rm', 'other', 'grandchlid', '--yes'], { cwd: dir })
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe('error SESSION_NOT_FOUND: No session "grandchlid" in .bosun/sessions (JSONL). Did you mean grandchild? `bosun sessions list` shows the sessions there.\n')
    expect(await listed(dir)).toContain('other')
    // An id typed short, as a git hash is: the one it begins; nothing near: no guess.
    expect((await bosun(['sessions', 'show', 'root-f'], { cwd: dir })).stderr).toContain('No session "root-f" in .bosun/sessions (JSONL). Did you mean root-fork? ')
    expect((await bosun(['sessions', 'rm', 'zebra', '--yes'], { cwd: dir })).stderr).toBe('error SESSION_NOT_FOUND: No session "zebra" in .bosun/sessions (JSONL). `bosun sessions list` shows the sessions there.\n')
  })

  it('a session another process has open for writing: SESSION_LOCKED naming that process, and nothing removed', async ({ dir, expect }) => {
    await storedTree(dir)
    // This test's own process holds "other" (as a `bosun chat` on it would), until it closes it.
    const store = jsonlStore({ dir: sessionsDir(dir) })
    const held = (await store.open('other'))!
    try {
      const result = await bosun(['sessions', 'rm', 'other', '--yes'], { cwd: dir })
      expect(result).toMatchObject({ code: 1, stdout: '' })
      expect(result.stderr).toContain(`error SESSION_LOCKED: Session "other" is open for writing in process ${process.pid} on ${hostname()}: stop what runs it there`)
      expect(result.stderr).toContain('run `bosun sessions rm other` again')
      expect(existsSync(join(sessionsDir(dir), 'other.jsonl'))).toBe(true)
    } finally {
      await held.writer.close()
      await store.close()
    }
    // Closed there, it goes (`remove` is rm's other name).
    expect(await bosun(['sessions', 'remove', 'other', '--yes', '--json'], { cwd: dir })).toMatchObject({ code: 0, stdout: '{"removed":["other"]}\n' })
  })

  it('refuses a memory store, as the other sessions commands do', async ({ dir, expect }) => {
    await writeProject(dir, { store: 'memory' })
    const result = await bosun(['sessions', 'rm', 'anything', '--yes'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^error NO_PERSISTENT_STORE: The config .* keeps sessions in memory/)
  })

  it('on a terminal it lists what will go, children too, and removes nothing unless answered y', async ({ dir, expect }) => {
    await storedTree(dir)
    const no = await runInPty(['sessions', 'rm', 'root'], [
      { expect: 'Remove these 3 sessions\\? \\[y/N\\]' },
      { send: `n${Keys.enter}` },
      { wait_exit: true },
    ], { cwd: dir })
    expect(no.error).toBe(null)
    expect(no.exit_code).toBe(1)
    expect(no.screen).toContain('This removes from .bosun/sessions (JSONL), for good:\n  root\n    └ child (subagent child)\n      └ grandchild (subagent child)\nRemove these 3 sessions? [y/N] n\n')
    expect(no.screen).toContain('error NOT_CONFIRMED: Not confirmed: nothing was removed. Answer "y", or pass --yes.')
    expect(await listed(dir)).toEqual(['child', 'grandchild', 'other', 'root', 'root-fork'])

    const yes = await runInPty(['sessions', 'rm', 'other'], [
      { expect: 'Remove it\\? \\[y/N\\]' },
      { send: `y${Keys.enter}` },
      { wait_exit: true },
    ], { cwd: dir })
    expect(yes.error).toBe(null)
    expect(yes.exit_code).toBe(0)
    expect(yes.screen).toContain('Removed other from .bosun/sessions (JSONL).')
    expect(await listed(dir)).toEqual(['child', 'grandchild', 'root', 'root-fork'])
  })
})
