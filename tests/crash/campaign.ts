// The crash campaign: start a real process running an agent on a durable store, kill it with
// SIGKILL at a random moment, reopen the session here and check that nothing accepted was lost
// and the log is whole. Repeats on the same session, so later runs resume what earlier kills left.
// Some runs are not checked here: the next worker opens the session as the kill left it, with its
// store's file layer set to tear the first batch it writes (tear.mjs) — recovery's — and die. So
// recovery itself is crashed mid-batch (sometimes twice in a row), and the check that follows
// covers what a torn repair leaves.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, foldConsumedWork, type SessionEvent, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { checkDelivery } from '../../packages/core/src/testing/delivery.js'

export type StoreKind = 'jsonl' | 'sqlite'

const worker = fileURLToPath(new URL('./worker.mjs', import.meta.url))

export interface CampaignReport {
  /** Processes killed: at a random moment, or by a tear. */
  kills: number
  acked: number
  events: number
  turns: number
  interruptedTurns: number
  /** Processes killed in the middle of writing recovery's batch. */
  repairTears: number
  /** Processes killed in the middle of their first workload batch (there was nothing to repair). */
  batchTears: number
}

function openStore(kind: StoreKind, location: string): Store {
  return kind === 'jsonl' ? jsonlStore({ dir: location }) : sqliteStore({ file: location })
}

interface Ended {
  code: number | null
  signal: NodeJS.Signals | null
  stderr: string
}

/**
 * Runs a worker script, calling `onLine` for each line it prints (with the child, to kill it),
 * and resolves once it has exited AND its pipes are read to the end ('close', not 'exit': an ACK
 * printed just before a kill must still count).
 */
function runWorker(args: string[], onLine: (line: string, child: ChildProcess) => void): Promise<Ended> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  let buffer = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    let newline: number
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      onLine(line, child)
    }
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stderr }))
  })
}

/** What one run left: the ids it acknowledged, and where a tear killed it, if one did. */
interface Run {
  acked: string[]
  torn?: 'repair' | 'batch'
}

/**
 * Runs one child until `killAfterMs` after it is ready, then SIGKILLs it. With a `cut`, its store
 * tears its first batch and kills it first: before READY, that batch was recovery's.
 */
async function runAndKill(kind: StoreKind, location: string, seed: number, run: string, killAfterMs: number, cut?: string): Promise<Run> {
  const result: Run = { acked: [] }
  let timer: NodeJS.Timeout | undefined
  const ended = await runWorker([worker, kind, location, 'campaign', String(seed), run, ...(cut === undefined ? [] : [cut])], (line, child) => {
    if (line.startsWith('ACK ')) result.acked.push(line.slice(4))
    if (line.startsWith('TORN ')) result.torn = timer === undefined ? 'repair' : 'batch'
    if (line.startsWith('READY') && !timer) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
  })
  clearTimeout(timer)
  if (ended.signal !== 'SIGKILL') throw new Error(`worker ${run} (seed ${seed}) exited on its own (code ${ended.code}):\n${ended.stderr}`)
  return result
}

/** How the first batch is torn, from the run's seed: `last` (all but its last line) most often, else a line boundary or a byte. */
function cutFor(seed: number): string {
  const n = (Math.imul(seed, 2654435761) >>> 0) % 1_000_003
  return `${['last', 'last', 'line', 'byte'][seed % 4]}:${n}`
}

/**
 * Whether run `k` tears its first batch (then run `k - 1` is not checked, so that run `k` opens
 * the session as the kill left it and writes recovery's batch): every fourth run, and every
 * twelfth the run right after one, which tears the repair of a torn repair.
 */
const tears = (k: number) => k % 4 === 1 || k % 12 === 2

/** Checks the invariants of a reopened session; throws with the run and the detail on a violation. */
function verify(events: readonly SessionEvent[], acked: ReadonlySet<string>, run: string): { turns: number; interrupted: number } {
  events.forEach((event, i) => {
    if (event.seq !== i) throw new Error(`${run}: seq ${event.seq} at index ${i}`)
  })
  let open: number | undefined
  for (const event of events) {
    if (event.type === 'turn/start') {
      if (open !== undefined) throw new Error(`${run}: turn ${(event.data as { turn: number }).turn} started inside open turn ${open}`)
      open = (event.data as { turn: number }).turn
    } else if (event.type === 'turn/end') {
      if (open !== (event.data as { turn: number }).turn) throw new Error(`${run}: turn/end ${(event.data as { turn: number }).turn} without its turn/start`)
      open = undefined
    }
  }
  if (open !== undefined) throw new Error(`${run}: turn ${open} still open after the session was reopened`)
  // The loop's delivery rules over the whole log (core/src/testing/delivery.ts): at most one delivery
  // per message, claims only inside turns, steps paired, follow-ups in order, nothing claimed left
  // undelivered but by a Stop or a pre-step reject — across every kill and repair so far.
  try {
    checkDelivery(events)
  } catch (error) {
    throw new Error(`${run}: ${(error as Error).message}`)
  }

  const work = foldConsumedWork(events)
  const placed = new Map<string, string>()
  const place = (id: string, where: string) => {
    const before = placed.get(id)
    // A message claimed by a turn that a crash interrupted goes back to the queue: it may be
    // placed again later. Any other double placement is a message consumed twice.
    if (before !== undefined && !before.startsWith('interrupted')) throw new Error(`${run}: message ${id} is both ${before} and ${where}`)
    placed.set(id, where)
  }
  for (const turn of work.turns) {
    for (const id of turn.stepped) place(id, `stepped in turn ${turn.turn}`)
    for (const id of turn.unstepped) place(id, turn.end === 'interrupted' ? `interrupted in turn ${turn.turn}` : `dropped by turn ${turn.turn} (${turn.end})`)
  }
  for (const id of work.canceled) place(id, 'canceled')
  for (const id of [...work.pending['next-step'], ...work.pending['next-turn']]) place(id, 'pending')
  for (const id of acked) {
    const where = placed.get(id)
    if (where === undefined || where.startsWith('interrupted')) throw new Error(`${run}: acknowledged message ${id} was lost (${where ?? 'not in the log'})`)
  }
  return { turns: work.turns.length, interrupted: work.turns.filter((t) => t.end === 'interrupted').length }
}

export async function crashCampaign(kind: StoreKind, kills: number, seed = 1): Promise<CampaignReport> {
  const dir = await mkdtemp(join(tmpdir(), `bosun-crash-${kind}-`))
  const location = kind === 'jsonl' ? dir : join(dir, 'sessions.sqlite')
  const acked = new Set<string>()
  let report: CampaignReport = { kills: 0, acked: 0, events: 0, turns: 0, interruptedTurns: 0, repairTears: 0, batchTears: 0 }
  try {
    let torn: string[] = []
    for (let k = 0; k < kills; k++) {
      const runSeed = seed * 100_003 + k
      const killAfterMs = 5 + ((runSeed * 7919) % 120)
      const cut = tears(k) ? cutFor(runSeed) : undefined
      const run = await runAndKill(kind, location, runSeed, `r${k}`, killAfterMs, cut)
      for (const id of run.acked) acked.add(id)
      if (run.torn === 'repair') report.repairTears++
      if (run.torn === 'batch') report.batchTears++
      if (run.torn) torn.push(`${run.torn} torn at ${cut}`)
      report.kills = k + 1
      if (k + 1 < kills && tears(k + 1)) continue // the next run recovers (and tears) what this one left
      const store = openStore(kind, location)
      const agent = await createAgent({ model: scripted(), store, sessionId: 'campaign' })
      // Enough to replay the workload (`pnpm test:crash --seed S --kills K`); the kill moments are timing, not seeded.
      const what = `${kind} campaign seed ${seed}, run r${k} (seed ${runSeed}, kill after ${killAfterMs} ms${torn.length > 0 ? `, ${torn.join(', then ')}` : ''})`
      torn = []
      const { turns, interrupted } = verify(agent.session.events, acked, what)
      report = { ...report, acked: acked.size, events: agent.session.length, turns, interruptedTurns: interrupted }
      await agent.close()
      await store.close()
      if (process.env.BOSUN_CRASH_PROGRESS) {
        process.stderr.write(`\r${kind}: ${k + 1}/${kills} kills, ${report.repairTears} in repairs, ${acked.size} acked, ${report.events} events`)
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return report
}
