// Fixture of the per-step overhead benchmarks: the core's own cost per step, with the scripted
// model (no delays) and the memory store, at a short and a long history. A history that drifted far from its nominal length would blur the
// comparison, so the agent is rebuilt (untimed, in beforeEach) from a prebuilt log once it has
// grown by 5% (plus two turns). Run: `pnpm bench`.
import type { BenchOptions } from 'vitest'
import { scripted, type ScriptedAdapter } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type Agent, type SessionEvent, type Tool } from '../src/index.js'

const tools: Tool[] = [
  {
    name: 'lookup',
    description: 'Looks a key up.',
    parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    execute: ({ key }: { key: string }) => `value of ${key}`,
  },
]

/** A realistic log of `length` events: alternating plain turns and two-step tool turns. */
async function prebuiltLog(length: number): Promise<SessionEvent[]> {
  const model = scripted()
  const agent = await createAgent({ model, tools })
  for (let i = 0; agent.session.length < length; i++) {
    if (i % 2 === 1) model.push({ toolCalls: [{ name: 'lookup', args: { key: `k${i}` } }] }, { text: `the value is ${i}` })
    agent.followup(`message number ${i}`)
    await agent.whenIdle()
  }
  return [...agent.session.events]
}

export function fixture(length: number, withTool: boolean) {
  let log: SessionEvent[] = []
  let agent: Agent
  let model: ScriptedAdapter
  let n = 0
  /** Time spent in untimed preparation, which the bench clock leaves out. */
  let paused = 0
  const rebuild = async () => {
    const store = memoryStore()
    const stored = await store.create({ id: `bench-${n++}`, version: 1, createdAt: 0 }, log)
    model = scripted()
    agent = await createAgent({ model, store, sessionId: stored.header.id, tools })
    // One untimed turn: tapable generates each hook's call function on first use, a one-off
    // cost per agent that is not per-step overhead.
    agent.followup('warm-up')
    await agent.whenIdle()
  }
  return {
    setup: async () => {
      log = await prebuiltLog(length)
      await rebuild()
    },
    /**
     * One measured turn. The preparation before it (a rebuild once the history has grown 5%, the
     * scripted responses of a tool turn) is timed separately and left out by {@link benchOptions}'
     * clock: vitest 4.1 drops tinybench's per-task `beforeEach`, so it cannot be used for this.
     */
    turn: async () => {
      const start = performance.now()
      if (agent.session.length > length * 1.05 + 40) await rebuild()
      if (withTool) model.push({ toolCalls: [{ name: 'lookup', args: { key: 'k' } }] }, { text: 'done' })
      paused += performance.now() - start
      agent.followup('hello')
      await agent.whenIdle()
    },
    /** A clock that stands still during the preparation. */
    now: () => performance.now() - paused,
    /** For a check after the run: the history stayed near its nominal length. */
    length: () => agent.session.length,
  }
}


/** Bench options whose clock leaves out each iteration's untimed preparation. */
export function benchOptions(now: () => number): BenchOptions {
  return { time: 3000, warmupTime: 1000, now }
}
