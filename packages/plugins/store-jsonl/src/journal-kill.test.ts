// SIGKILL, for real: a child process writes several sessions through the store journal and is
// killed at a random moment, again and again in the same folder. After some kills the session
// files are also cut back to what a power loss could leave (anything past what was durable in
// them: the journal holds the rest). Every run's opening replays the previous run's journal, and
// every event a flush acknowledged must be there, intact, in order. The child runs the built
// package: the build is brought up to date first (incremental, quick when current).
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { decodeRecords, isJournalName } from './journal-format.js'
import { cutFile } from './testing/crash-image.js'
import { sessionFile } from './testing/fixtures.js'

const CHILD = fileURLToPath(new URL('../test/kill-child.mjs', import.meta.url))
const SESSIONS = 6
const KILLS = 8
const payload = (id: string, seq: number) => `${id}:${seq}:` + 'x'.repeat((seq * 7919) % 40_000)

let dir: string
beforeAll(async () => {
  const root = fileURLToPath(new URL('../../../..', import.meta.url))
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  dir = await mkdtemp(join(tmpdir(), 'bosun-jsonl-kill-'))
}, 180_000)
afterAll(() => rm(dir, { recursive: true, force: true }))

/** A small seeded PRNG (mulberry32): a failing campaign can be replayed from its seed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0
    let t = seed
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Run {
  /** Events of each session when the child opened it, and the file's size then. */
  opened: Map<string, { events: number; bytes: number }>
  acked: Map<string, number>
}

/** Runs the child until it has acknowledged `acks` flushes, then SIGKILLs it. */
function runAndKill(seed: number, acks: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, String(SESSIONS), String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] })
    const run: Run = { opened: new Map(), acked: new Map() }
    let seen = 0
    let buffered = ''
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        const [kind, id, n, bytes] = line.split(' ')
        if (kind === 'OPENED') run.opened.set(id!, { events: Number(n), bytes: Number(bytes) })
        if (kind === 'ACK') {
          run.acked.set(id!, Math.max(run.acked.get(id!) ?? -1, Number(n)))
          if (++seen === acks) child.kill('SIGKILL')
        }
      }
    })
    child.on('error', reject)
    // Read to the end: ACKs printed just before the kill still count.
    child.on('close', (code, signal) => (signal === 'SIGKILL' ? resolve(run) : reject(new Error(`child exited ${code}: ${stderr}`))))
  })
}

/** Where the journals' records of each session start: everything before it is durable in the session file (synced at creation, at opening or at a checkpoint). */
async function firstJournaledOffsets(): Promise<Map<string, number>> {
  const firstOffset = new Map<string, number>()
  for (const name of (await readdir(dir)).filter(isJournalName)) {
    for (const record of decodeRecords(await readFile(join(dir, name))).records) {
      firstOffset.set(record.id, Math.min(firstOffset.get(record.id) ?? Infinity, record.offset))
    }
  }
  return firstOffset
}

/** What a power loss could leave of each session file: its durable bytes and a random part of the rest. */
async function powerLoss(firstOffset: Map<string, number>, random: () => number): Promise<number> {
  let cut = 0
  for (const [id, durable] of firstOffset) {
    const file = sessionFile(dir, id)
    const size = (await stat(file)).size
    const keep = durable + Math.floor(random() * (size - durable))
    if (keep < size) cut++
    await cutFile(file, keep, random() < 0.3 ? 4096 : 0)
  }
  return cut
}

it(`${KILLS} SIGKILLs of a process writing ${SESSIONS} sessions through the journal, some followed by a power-loss cut of the session files: every acknowledged event survives`, async () => {
  const seed = Number(process.env.BOSUN_KILL_SEED ?? Date.now() % 1_000_000)
  const random = prng(seed)
  const acked = new Map<string, number>()
  let cutFiles = 0
  let checkpointed = false
  for (let kill = 0; kill < KILLS; kill++) {
    const run = await runAndKill(seed + kill, 20 + Math.floor(random() * 200))
    // The opening replayed the previous kill's journal: nothing acknowledged before it is missing.
    for (const [id, last] of acked) expect(run.opened.get(id)?.events, `seed ${seed}, kill ${kill}, ${id}`).toBeGreaterThan(last)
    for (const [id, last] of run.acked) acked.set(id, Math.max(acked.get(id) ?? -1, last))
    const first = await firstJournaledOffsets()
    // The journal was cut at a checkpoint during this run: its records start past what the run opened.
    if ([...first].some(([id, offset]) => offset > run.opened.get(id)!.bytes)) checkpointed = true
    if (kill % 2 === 1) cutFiles += await powerLoss(first, random)
  }
  expect(cutFiles).toBeGreaterThan(0) // the power-loss cuts did remove bytes that replay had to restore
  expect(checkpointed).toBe(true)
  const store = jsonlStore({ dir })
  for (let i = 0; i < SESSIONS; i++) {
    const id = `k${i}`
    const { events } = (await store.open(id))!
    expect(events.length, `seed ${seed}, ${id}`).toBeGreaterThan(acked.get(id)!)
    events.forEach((e, seq) => expect(e.data).toEqual({ text: payload(id, seq) }))
  }
  await store.close()
  expect((await readdir(dir)).filter(isJournalName)).toEqual([])
}, 300_000)
