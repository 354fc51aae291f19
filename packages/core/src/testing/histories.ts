import { harness } from './harness.js'

/**
 * An agent whose log holds `exchanges` turns of 4 model-visible messages each (a question, a
 * tool call, its result, an answer), as figure 6's idle session has (docs/benchmarks.md).
 */
export async function history(exchanges: number) {
  const { agent } = await harness({
    responses: Array.from({ length: exchanges }, (_, i) => [
      { toolCalls: [{ name: 'lookup', args: { key: `k${i}` } }] },
      { text: `answer ${i}` },
    ]).flat(),
    tools: [{ name: 'lookup', description: 'Looks a key up.', parameters: { type: 'object' }, execute: () => 'value' }],
  })
  for (let i = 0; i < exchanges; i++) {
    agent.followup(`question ${i}`)
    await agent.whenIdle()
  }
  return agent
}
