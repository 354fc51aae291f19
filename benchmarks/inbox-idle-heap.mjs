// Dev aid (issue 20, goal 2): heap bytes an idle Inbox keeps, as packages/core/src/inbox/inbox-idle.test.ts
// measures it, but on a built core so that two builds can be compared (BENCH_CORE, as ab-core.mjs).
// A 10-turn history is made once with that build (a minimal inline adapter), then N Sessions over
// copies of its events; the heap after two full collections, before and after making one Inbox
// per Session, ÷ N. `node --expose-gc benchmarks/inbox-idle-heap.mjs [N=10000]`.
const { createAgent, Session, Inbox } = await import(process.env.BENCH_CORE || '@bosun/core')

async function* answer(i) {
  yield { type: 'text-delta', text: `answer ${i}` }
  yield { type: 'finish', reason: 'stop' }
}
let calls = 0
const agent = await createAgent({ model: { name: 'idle-heap', stream: () => answer(calls++) } })
for (let i = 0; i < 10; i++) agent.followup(`question ${i}`)
await agent.whenIdle()
const header = agent.session.header
const events = [...agent.session.events]
await agent.close()

const count = Number(process.argv[2] ?? 10000)
// Warm-up: the code that builds an inbox is compiled before the measurement.
for (let i = 0; i < 300; i++) new Inbox(new Session(header, [...events]))
const sessions = Array.from({ length: count }, () => new Session(header, [...events]))
const heap = () => (gc(), gc(), process.memoryUsage().heapUsed)
const before = heap()
const inboxes = sessions.map((session) => new Inbox(session))
const after = heap()
if (inboxes.length !== count || inboxes.some((inbox) => inbox.hasPending)) throw new Error('inbox-idle-heap: unexpected state')
console.log(JSON.stringify({ ok: true, inboxes: count, events: events.length, bytesPerInbox: Math.round((after - before) / count) }))
