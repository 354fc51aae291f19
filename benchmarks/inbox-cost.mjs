// Dev aid (issue 20, goal 1): what the inbox's two splices of a turn cost on their own — a bare
// Session (no store, no loop) and its Inbox, N rounds of the turn's pair: the admission (the
// agent's send: `splice(target, Infinity, 0, [message])` of a validated message) and the claim
// (`claim('next-turn', turn)`). `node benchmarks/inbox-cost.mjs [rounds]`; BENCH_CORE picks a
// build (as ab-core.mjs). Under callgrind (`node --single-threaded --predictable`) at two round
// counts, the difference ÷ the rounds is instructions per pair, start-up cancelled; a third
// argument `setup` makes the messages and stops (subtract its difference: what making them costs).
const core = await import(process.env.BENCH_CORE || '@bosun/core')
const { Session, Inbox, createUserMessage } = core

const rounds = Number(process.argv[2] ?? 10000)
const session = new Session({ id: 'inbox-cost', version: 1, createdAt: 0 })
const inbox = new Inbox(session)
// Messages made first, so that the count is the inbox's (createUserMessage draws a UUID).
const messages = Array.from({ length: rounds }, (_, i) => createUserMessage('hello', { id: `m${i}`, source: { kind: 'user', delivery: 'followup' } }))
if (process.argv[3] === 'setup') {
  console.log(JSON.stringify({ ok: true, rounds, messages: messages.length }))
  process.exit(0)
}
let claimed = 0
for (let i = 0; i < rounds; i++) {
  inbox.splice('next-turn', Infinity, 0, [messages[i]])
  claimed += inbox.claim('next-turn', i + 1).length
}
if (claimed !== rounds || session.events.length !== 2 * rounds) throw new Error('inbox-cost: unexpected result')
console.log(JSON.stringify({ ok: true, rounds, events: session.events.length }))
