// The crash campaign: start a real process running an agent on a durable store, kill it with
// SIGKILL at a random moment, reopen the session here and check that nothing accepted was lost
// and the log is whole. Repeats on the same session, so later runs resume what earlier kills left.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, foldConsumedWork, type SessionEvent, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'

export type StoreKind = 'jsonl' | 'sqlite'

const worker = fileURLToPath(new URL('./worker.mjs', import.meta.url))

export interface CampaignReport {
  kills: number
  acked: number
  events: number
  turns: number
  interruptedTurns: number
}

function openStore(kind: StoreKind, location: string): Store {
  return kind === 'jsonl' ? jsonlStore({ dir: location }) : sqliteStore({ file: location })
}

/** Runs one child until `killAfterMs` after it is ready, then SIGKILLs it; returns the acked ids. */
async function runAndKill(kind: StoreKind, location: string, seed: number, run: string, killAfterMs: number): Promise<string[]> {
  const child = spawn(process.execPath, [worker, kind, location, 'campaign', String(seed), run], { stdio: ['ignore', 'pipe', 'pipe'] })
  const acked: string[] = []
  let stderr = ''
  let buffer = ''
  let timer: NodeJS.Timeout | undefined
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    let newline: number
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      if (line.startsWith('ACK ')) acked.push(line.slice(4))
      if (line.startsWith('READY') && !timer) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    }
  })
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])))
  clearTimeout(timer)
  if (signal !== 'SIGKILL') throw new Error(`worker ${run} (seed ${seed}) exited on its own (code ${code}):\n${stderr}`)
  return acked
}

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
  let report: CampaignReport = { kills: 0, acked: 0, events: 0, turns: 0, interruptedTurns: 0 }
  try {
    for (let k = 0; k < kills; k++) {
      const runSeed = seed * 100_003 + k
      const killAfterMs = 5 + ((runSeed * 7919) % 120)
      for (const id of await runAndKill(kind, location, runSeed, `r${k}`, killAfterMs)) acked.add(id)
      const store = openStore(kind, location)
      const agent = await createAgent({ model: scripted(), store, sessionId: 'campaign' })
      const { turns, interrupted } = verify(agent.session.events, acked, `${kind} run r${k} (seed ${runSeed}, kill after ${killAfterMs} ms)`)
      report = { kills: k + 1, acked: acked.size, events: agent.session.length, turns, interruptedTurns: interrupted }
      await agent.close()
      await store.close()
      if (process.env.BOSUN_CRASH_PROGRESS) process.stderr.write(`\r${kind}: ${k + 1}/${kills} kills, ${acked.size} acked, ${report.events} events`)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return report
}
