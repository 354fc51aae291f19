// Figure 4b's timed part, shared by journal-syncs.mjs and jsonl-inproc-ab.mjs: every agent runs
// `turns` turns one after the other, all agents at once in this event loop.

/** Runs the turns; returns when they started (performance.now()), the wall ms, CPU (process.cpuUsage) and event-loop utilisation over them. */
export async function timedTurns(agents, turns) {
  const cpu0 = process.cpuUsage()
  const elu0 = performance.eventLoopUtilization()
  const t0 = performance.now()
  await Promise.all(agents.map(async (agent) => {
    for (let i = 0; i < turns; i++) await agent.turn(`question ${i}`)
  }))
  const wallMs = performance.now() - t0
  return { t0, wallMs, cpu: process.cpuUsage(cpu0), elu: performance.eventLoopUtilization(elu0) }
}
