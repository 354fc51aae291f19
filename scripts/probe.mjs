import { createAgent, memoryStore } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
const tools = [{ name: 'lookup', description: 'x', parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }, execute: ({key}) => 'v' + key }]
async function measure(agent, model, n) {
  const times = []
  for (let i = 0; i < n; i++) {
    model.push({ toolCalls: [{ name: 'lookup', args: { key: 'k' } }] }, { text: 'done' })
    const t = process.hrtime.bigint(); agent.followup('hello'); await agent.whenIdle()
    times.push(Number(process.hrtime.bigint() - t) / 1e3)
  }
  times.sort((a, b) => a - b); return times[n >> 1].toFixed(1)
}
const model0 = scripted(); const a0 = await createAgent({ model: model0, tools })
for (let round = 0; round < 6; round++) {
  const t = Date.now()
  for (let i = 0; i < 3000; i++) { const m = scripted(); const a = await createAgent({ model: m, tools }); a.followup('w'); await a.whenIdle() }
  console.log('round', round, 'created 3000 agents in', Date.now() - t, 'ms; steady turn median µs', await measure(a0, model0, 500), 'heap MB', (process.memoryUsage().heapUsed / 1e6).toFixed(0))
}
