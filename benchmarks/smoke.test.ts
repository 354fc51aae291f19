// Smoke run of the peer benchmark harness, so that it cannot rot: every contender, one sample,
// each figure's smallest configuration. Asserts only that each produced a result or a stated
// reason; benchmarks assert no timing. The real run is `pnpm bench` (not part of the tests).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const here = import.meta.dirname

test('every contender produces a result or a stated reason (one sample each)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'run.mjs'), '--smoke'], { cwd: here, timeout: 60_000 })
  const results = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, Record<string, Record<string, { wall?: number; reason?: string }>>>
  const cells = [
    ...Object.entries(results.fig1!).map(([id, r]) => [`fig1 ${id}`, r] as const),
    ...Object.values(results.fig2!).flatMap((row) => Object.entries(row).map(([id, r]) => [`fig2 ${id}`, r] as const)),
    ...Object.values(results.fig3!).flatMap((row) => Object.entries(row).map(([id, r]) => [`fig3 ${id}`, r] as const)),
  ]
  expect(cells.length).toBeGreaterThanOrEqual(7 + 4 + 4)
  // Figure 6 (memory): 10 loaded sessions per contender; a heap figure or a stated reason.
  const mem = Object.entries((results.fig6 as unknown as { loaded: Record<string, { ok: boolean; perSession?: { heapUsed: number }; reason?: string }> }).loaded)
  expect(mem.length).toBe(4)
  for (const [id, r] of mem) {
    const ok = (r.ok && typeof r.perSession?.heapUsed === 'number') || (typeof r.reason === 'string' && r.reason.length > 0)
    expect(ok, `fig6 ${id}: ${JSON.stringify(r)}`).toBe(true)
  }
  for (const [name, r] of cells) {
    const ok = (typeof r.wall === 'number' && r.wall > 0) || (typeof r.reason === 'string' && r.reason.length > 0)
    expect(ok, `${name}: ${JSON.stringify(r)}`).toBe(true)
  }
}, 60_000)

type ChildResult = { ok: boolean; reason?: string } & Record<string, unknown>
const okOrReason = (r: ChildResult | undefined) => r !== undefined && (r.ok || (typeof r.reason === 'string' && r.reason.length > 0))

test('figure 7 (concurrency): 10 sessions × 2 turns per contender, a result or a stated reason', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'run.mjs'), '--only', 'concurrency', '--smoke'], { cwd: here, timeout: 60_000 })
  const { fig7 } = JSON.parse(stdout.trim().split('\n').pop()!) as { fig7: { runs: Record<string, Record<string, ChildResult & { turns?: number }>> } }
  const cells = Object.values(fig7.runs).flatMap((row) => Object.entries(row))
  expect(cells.length).toBe(4)
  for (const [id, r] of cells) {
    expect(okOrReason(r), `fig7 ${id}: ${JSON.stringify(r)}`).toBe(true)
    if (r.ok) expect(r.turns).toBe(20)
  }
}, 60_000)

test('figure 4 (durable step): one turn per durable contender, bytes written or a stated reason', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'run.mjs'), '--only', 'durable', '--smoke'], { cwd: here, timeout: 60_000 })
  const { fig4 } = JSON.parse(stdout.trim().split('\n').pop()!) as { fig4: { runs: Record<string, Record<string, ChildResult & { wchar?: number[]; growth?: number[] }>> } }
  const cells = Object.values(fig4.runs).flatMap((row) => Object.entries(row))
  expect(cells.length).toBe(3)
  for (const [id, r] of cells) {
    expect(okOrReason(r), `fig4 ${id}: ${JSON.stringify(r)}`).toBe(true)
    if (r.ok) expect(r.wchar!.length).toBe(1)
  }
}, 60_000)

test('figure 5 (resume): a 1,000-event session reopened by Bosun JSONL and LangGraph SqliteSaver, or a stated reason', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'run.mjs'), '--only', 'resume', '--smoke'], { cwd: here, timeout: 60_000 })
  const { fig5 } = JSON.parse(stdout.trim().split('\n').pop()!) as { fig5: { runs: Record<string, Record<string, ChildResult>> } }
  const cells = Object.values(fig5.runs).flatMap((row) => Object.entries(row))
  expect(cells.length).toBe(2)
  for (const [id, r] of cells) expect(okOrReason(r), `fig5 ${id}: ${JSON.stringify(r)}`).toBe(true)
}, 60_000)
