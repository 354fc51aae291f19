// SIGKILL, for real: a process that wrote session "s" through the store journal is killed while
// its journal still holds the records of "s" (never checkpointed, never closed). Whether that
// process removed "s" itself, or another removed it while the dead one's journal was live, the
// removed events never come back — not even into a new "s" with the very same header line, which
// keeps its own acknowledged event. The child runs the built package: the build is brought up to
// date first (incremental, quick when current).
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { isJournalName } from './journal-format.js'

const CHILD = fileURLToPath(new URL('../test/remove-child.mjs', import.meta.url))
const header = { id: 's', version: 1, createdAt: 1_700_000_000_000 }

beforeAll(() => {
  const root = fileURLToPath(new URL('../../../..', import.meta.url))
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
}, 180_000)

let dir: string
beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'bosun-jsonl-remove-kill-'))))
afterEach(() => rm(dir, { recursive: true, force: true }))

/** Starts the child; resolves with a function that SIGKILLs it (resolving once it is gone) when it has printed READY. */
function startChild(mode: 'remove' | 'hold'): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const gone = new Promise<void>((done) => child.on('close', () => done()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk
      if (stdout.includes('READY\n')) resolve(() => (child.kill('SIGKILL'), gone))
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited ${code}: ${stderr}`))
    })
  })
}

/** What a fresh store finds in "s": read() first (in memory), then open() (the sweep replays and deletes the dead journal). */
async function afterTheKill(): Promise<{ read?: number; opened?: number }> {
  const store = jsonlStore({ dir })
  const read = await store.read!('s')
  const opened = await store.open('s')
  await opened?.writer.close()
  await store.close()
  return { read: read?.events.length, opened: opened?.events.length }
}

it('removed by the process, created again with the same header, then SIGKILL before the journal checkpoints: only the new session\'s event is there', async () => {
  const kill = await startChild('remove')
  await kill()
  expect((await readdir(dir)).filter(isJournalName)).toHaveLength(1)
  expect(await afterTheKill()).toEqual({ read: 1, opened: 1 })
  // The dead journal was swept, and with it the record of the removal.
  expect((await readdir(dir)).filter((name) => isJournalName(name) || name.startsWith('.bosun-removed-'))).toEqual([])
})

it("removed by another process while the writer's journal is live, created again with the same header, then the writer is SIGKILLed: the new session stays empty", async () => {
  const kill = await startChild('hold')
  const store = jsonlStore({ dir })
  expect(await store.remove!('s')).toBe(true)
  await (await store.create(header)).writer.close()
  await store.close()
  await kill()
  expect(await afterTheKill()).toEqual({ read: 0, opened: 0 })
  expect(await afterTheKill()).toEqual({ read: 0, opened: 0 })
})
