// The offline demo: a Bosun agent on the scripted model with a JSONL store under .bosun/, showing
// a follow-up queue, a tool call, the event log, and a resume from disk. Run with `npm run quickstart`.
import { createAgent, formatTimeline } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'

const clock = {
  name: 'clock',
  description: 'Tells the current time in ISO 8601.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: () => new Date().toISOString(),
}

const model = scripted({
  responses: [
    { text: 'Hello! I am running offline on the scripted model.', chunkSize: 6, delayMs: 15 },
    { toolCalls: [{ name: 'clock', args: {} }] },
    { text: 'I looked at the clock for you.', chunkSize: 6, delayMs: 15 },
  ],
})

const store = jsonlStore({ dir: '.bosun/sessions' })
const sessionId = `demo-${Date.now()}`
const agent = await createAgent({ model, store, sessionId, system: 'You are a demo.', tools: [clock] })
agent.hooks.event.tap('demo', (event) => {
  if (event.type === 'assistant/chunk' && event.data.chunk.type === 'text-delta') process.stdout.write(event.data.chunk.text)
  if (event.type === 'assistant/message') process.stdout.write('\n')
  if (event.type === 'tool/call') console.log(`  [tool] ${event.data.name}(${event.data.arguments})`)
  if (event.type === 'turn/start') console.log(`\n── turn ${event.data.turn}`)
})

agent.followup('Hi there!')
agent.followup('What time is it?') // queued: runs as its own turn, after the first
agent.followup('And one more thing.') // no scripted response left: the model echoes
await agent.whenIdle()

console.log('\n── the event log, one line per event (chunks left out; bosun log --all <id> prints every event so)\n')
console.log(formatTimeline(agent.session.events, { requests: false }))
await agent.close()

// The session is on disk: a new agent resumes it, with the turn counter and the history restored.
const resumed = await createAgent({ model: scripted(), store, sessionId })
console.log(`\n── resumed ${sessionId} from .bosun/sessions/${sessionId}.jsonl: ${resumed.session.length} events, last turn ${resumed.turn}, ${resumed.surface.messages.length} messages of history`)
await resumed.close()
await store.close()
