import { spawnSync } from 'node:child_process'
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import { BIN, bosun, cleanEnv, requireBuild, it, writeProject } from './helpers.js'

beforeAll(requireBuild)

// A sessions folder bosun cannot use was reported with the file system's words only ("Could not take
// the write lock of session "a1" (…/a1.jsonl.lock): EACCES: permission denied, …"): where, what, but
// not which setting put the folder there nor what to change. The CLI knows both, and now says them.
describe.concurrent('a sessions folder bosun cannot write', () => {
  it('names the config\'s "dir" and what to change, for every command that touches the store', async ({ dir, expect }) => {
    await writeProject(dir, { store: ['store-jsonl', { dir: 'notes.txt/sessions' }] }, { 'notes.txt': 'not a folder\n' })
    const config = join(dir, 'bosun.config.json')
    const hint = `Sessions go to ${join(dir, 'notes.txt/sessions')} (the store's "dir" in ${config}); a part of that path is a file, not a folder: move the file away, or set "dir" to a folder bosun can write (relative to the config file's folder).`
    for (const args of [['run', 'hi'], ['sessions', 'list'], ['log', 'x'], ['run', '-s', 'x', 'hi']]) {
      const result = await bosun(args, { cwd: dir })
      expect(result.code, args.join(' ')).toBe(1)
      expect(result.stderr, args.join(' ')).toMatch(/^error STORE: .*ENOTDIR/)
      expect(result.stderr.trimEnd().endsWith(hint), `${args.join(' ')}: ${result.stderr}`).toBe(true)
      expect(result.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('says the folder is the default one, and how to name another, when no config names a store', async ({ dir, expect }) => {
    await writeFile(join(dir, 'package.json'), '{"name":"app"}\n')
    await writeFile(join(dir, '.bosun'), 'a file where the default folder goes\n')
    const result = await bosun(['run', 'hi'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stderr.trimEnd()).toMatch(/^error STORE: .*ENOTDIR.*\. Sessions go to \S+\/\.bosun\/sessions \(the default folder: no config was found\); a part of that path is a file, not a folder: move the file away, or name a folder bosun can write in a config \(bosun init writes one\): "store": \["store-jsonl", \{ "dir": "…" \}\]\.$/)
  })

  it('bosun serve refuses it before listening, as it refuses a config no session could be built from', async ({ dir, expect }) => {
    // It listened, then answered every request 500 internal-error, the reason in its log only.
    await writeProject(dir, { store: ['store-jsonl', { dir: 'notes.txt/sessions' }] }, { 'notes.txt': 'not a folder\n' })
    const result = await bosun(['serve', '--port', '0'], { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(`error STORE: Cannot keep sessions in ${join(dir, 'notes.txt/sessions')}: ENOTDIR: not a directory, stat '${join(dir, 'notes.txt/sessions')}'. Sessions go to ${join(dir, 'notes.txt/sessions')} (the store's "dir" in ${join(dir, 'bosun.config.json')}); a part of that path is a file, not a folder: move the file away, or set "dir" to a folder bosun can write (relative to the config file's folder).\n`)
    expect((await readdir(dir)).sort()).toEqual(['bosun.config.json', 'notes.txt'])
  })

  it('says permission denied is the folder\'s, as a user without write access gets it', async ({ dir, expect }) => {
    // Root writes anywhere: as root, the command runs as "nobody" (uid 65534), as an ordinary user would.
    const asRoot = process.getuid?.() === 0
    await writeProject(dir, { store: ['store-jsonl', { dir: 'locked' }] })
    await mkdir(join(dir, 'locked'))
    await chmod(join(dir, 'locked'), 0o555)
    await chmod(dir, 0o755)
    const result = spawnSync(process.execPath, [BIN, 'run', 'hi'], {
      cwd: dir, env: cleanEnv({ HOME: dir }), encoding: 'utf8', timeout: 60_000, ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    })
    expect(result.status).toBe(1)
    expect(result.stderr.trimEnd()).toMatch(/^error STORE: .*EACCES: permission denied.*\. Sessions go to \S+\/locked \(the store's "dir" in \S+\/bosun\.config\.json\); bosun may not write there \(permission denied\): let the user running bosun create and write files in that folder, or set "dir" to a folder bosun can write \(relative to the config file's folder\)\.$/)
  })

  it("a session file this user may not read is the store's to explain: no advice about writing", async ({ dir, expect }) => {
    // `bosun log` of a session another user wrote: the store says read, and what to do; the CLI's
    // "bosun may not write there" (for a folder it cannot write) would send the user the wrong way.
    const asRoot = process.getuid?.() === 0
    await writeProject(dir, { store: ['store-jsonl', { dir: 'sessions' }] })
    expect((await bosun(['run', 'hi'], { cwd: dir })).code).toBe(0)
    const [file] = (await readdir(join(dir, 'sessions'))).filter((name) => name.endsWith('.jsonl'))
    const id = file!.slice(0, -'.jsonl'.length)
    await chmod(dir, 0o755)
    await chmod(join(dir, 'sessions'), 0o755)
    if (!asRoot) await chmod(join(dir, 'sessions', file!), 0o000)
    const result = spawnSync(process.execPath, [BIN, 'log', id], {
      cwd: dir, env: cleanEnv({ HOME: dir }), encoding: 'utf8', timeout: 60_000, ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/^error STORE: Could not read session ".+" from .*EACCES: permission denied/)
    expect(result.stderr).toContain('read it as the user who wrote it, or give this user read access to the file.')
    expect(result.stderr).not.toContain('may not write there')
  })
})
