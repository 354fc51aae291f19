// Who is measured and at which sizes, per mode: `smoke` (tiny, for smoke.test.ts), the default run
// (`pnpm bench`), and `--long` (the cells that take minutes each). Kept in one place so that the
// run's time budget can be read and tuned here; the reports print the samples actually used.

export const CONTENDERS = [
  { id: 'bosun-memory', label: 'Bosun, memory store', contender: 'bosun', variant: 'memory', durable: false },
  { id: 'bosun-jsonl', label: 'Bosun, JSONL store (batchWindowMs 0)', contender: 'bosun', variant: 'jsonl', durable: true },
  { id: 'bosun-sqlite', label: 'Bosun, SQLite store (batchWindowMs 0)', contender: 'bosun', variant: 'sqlite', durable: true },
  // The same JSONL store on tmpfs, where fsync costs next to nothing: the framework's share of a
  // durable turn, apart from the disk's (figure 1 only).
  { id: 'bosun-jsonl-tmpfs', label: 'Bosun, JSONL store on tmpfs (/dev/shm; fsync ≈ free)', contender: 'bosun', variant: 'jsonl-tmpfs', durable: true, fig1Only: true },
  { id: 'pi', label: 'pi-agent-core', contender: 'pi', variant: 'memory', durable: false },
  { id: 'ai', label: 'AI SDK streamText', contender: 'ai', variant: 'memory', durable: false },
  { id: 'lg-memory', label: 'LangGraph, MemorySaver', contender: 'langgraph', variant: 'memory', durable: false },
  { id: 'lg-sqlite', label: 'LangGraph, SqliteSaver', contender: 'langgraph', variant: 'sqlite', durable: true },
]
export const MEMORY = CONTENDERS.filter((c) => !c.durable)
export const DURABLE = CONTENDERS.filter((c) => c.durable && !c.fig1Only)
export const byId = (id) => CONTENDERS.find((c) => c.id === id)
/** Figure 4b: Bosun's durable stores against its memory store, many sessions at once. */
export const CONCURRENT_DURABLE = ['bosun-memory', 'bosun-jsonl', 'bosun-sqlite'].map(byId)
/** Figure 5: the stores that can reopen a session (pi and the AI SDK keep none). */
export const RESUMERS = ['bosun-jsonl', 'bosun-sqlite', 'lg-sqlite'].map(byId)

/** Figure 3b (paced streaming): Bosun against the two peers whose streaming is closest. */
export const PACED = ['bosun-memory', 'pi', 'ai'].map(byId)

// The AI SDK and LangGraph cost 30–8,000× Bosun's time per turn and were three quarters of the
// run's time: they get fewer samples per child (`slow`) and, in the default run, ONE round (the
// children's `once`); their ratios to Bosun move little with more, and no conclusion rests on
// their spread. Bosun and pi-agent-core, whose figures are close, keep every round.
export const isSlow = (c) => c.contender === 'ai' || c.contender === 'langgraph'
const s = (samples, warmup, slowSamples, slowWarmup) => ({ samples, warmup, slow: { samples: slowSamples, warmup: slowWarmup } })
const ONE = { samples: 1, warmup: 0 }

export function plan({ smoke }) {
  if (smoke) {
    return {
      fig1: { prior: 100, ...ONE },
      fig2: [{ prior: 10, ...ONE }],
      fig3: [{ prior: 10, chunks: 10, chunkSize: 1, ...ONE }],
      fig3b: [{ prior: 10, chunks: 10, chunkSize: 1, pace: 'immediate', ...ONE }],
      fig4: { priors: [40], samples: 1, slowLargeSamples: 1, concurrent: [{ sessions: 2, turns: 2 }] },
      // The largest size's LangGraph cell is left to `--long`, as in the default run.
      fig5: { sizes: [200, 1000], reps: () => 1, longSize: 1000 },
      fig6: { prior: 40, loaded: 10 },
      fig7: { sizes: [4, 10], turns: 2, longSize: 10, longIds: ['ai', 'lg-memory'] },
    }
  }
  return {
    fig1: { prior: 100, ...s(40, 10, 20, 5) },
    fig2: [
      { prior: 10, ...s(40, 10, 20, 5) },
      { prior: 100, ...s(40, 10, 20, 5) },
      // Bosun and pi take well under a millisecond per turn even here: enough samples that the
      // median is not decided by setup garbage collected inside a timed turn.
      { prior: 1000, ...s(30, 8, 8, 2) },
      { prior: 10000, ...s(30, 8, 2, 1) },
    ],
    fig3: [[100, 10], [1000, 1], [1000, 10], [1000, 100]].map(([chunks, chunkSize]) => ({ prior: 10, chunks, chunkSize, ...s(20, 5, 8, 2) }))
      .concat([{ prior: 10, chunks: 10000, chunkSize: 10, ...s(8, 2, 3, 1) }]),
    // Paced: each delta in its own macrotask, as from a network stream (lib/conversation.mjs).
    // 1 ms timers: ~0.1 s per turn whoever streams, so fewer deltas and samples.
    fig3b: [
      { prior: 10, chunks: 1000, chunkSize: 10, pace: 'immediate', ...s(20, 5, 8, 2) },
      { prior: 10, chunks: 100, chunkSize: 10, pace: 'timer', ...s(10, 3, 5, 1) },
    ],
    // LangGraph at 4,000 messages: ~1 s per turn (it checkpoints the whole history per step).
    // `concurrent`: N sessions at once in one process, in one store (figure 4b); about as many
    // turns per child at each N.
    fig4: { priors: [40, 400, 4000], samples: 15, slowLargeSamples: 5, concurrent: [{ sessions: 1, turns: 200 }, { sessions: 8, turns: 40 }, { sessions: 64, turns: 10 }] },
    // One reopen per child from 100,000 events (seconds each; the rounds repeat it).
    fig5: { sizes: [1000, 100_000, 1_000_000], reps: (n) => (n < 100_000 ? 5 : 1), longSize: 1_000_000 },
    fig6: { prior: 40, loaded: 100, idle: 10_000 },
    fig7: { sizes: [100, 1000], turns: 10, longSize: 1000, longIds: ['ai', 'lg-memory'] },
  }
}
