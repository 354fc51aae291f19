// pi-agent-core: `new Agent(...)` and `agent.prompt()`, with a stream function shaped like
// pi-ai's providers (an AssistantMessageEventStream fed start / text_* / toolcall_* / done
// events, `partial` being the message under construction, as the real providers push it). Not
// pi-ai's faux provider: it serialises the whole context on every call to estimate usage, a
// mock cost that would grow with the history and is not pi's framework cost.
// The caller receives text deltas the way pi's users do: `agent.subscribe` on `message_update`.
import { Agent } from '@mariozechner/pi-agent-core'
import { Type, createAssistantMessageEventStream } from '@mariozechner/pi-ai'
import { TOOL_ARGS_JSON, TOOL_DESCRIPTION, TOOL_NAME, answerDeltas, pacer, toolResult } from '../lib/conversation.mjs'

const piModel = {
  id: 'bench', name: 'bench', api: 'bench', provider: 'bench', baseUrl: 'http://localhost', reasoning: false,
  input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 16384,
}
const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }

const tools = [{
  name: TOOL_NAME,
  label: TOOL_NAME,
  description: TOOL_DESCRIPTION,
  parameters: Type.Object({ key: Type.String() }),
  execute: async (_id, { key }) => ({ content: [{ type: 'text', text: toolResult(key) }], details: {} }),
}]

function streamFn({ chunks, chunkSize, pace }) {
  const deltas = answerDeltas(chunks, chunkSize)
  const wait = pacer(pace)
  let calls = 0
  return (model, context) => {
    const stream = createAssistantMessageEventStream()
    const last = context.messages[context.messages.length - 1]
    const output = { role: 'assistant', content: [], api: model.api, provider: model.provider, model: model.id, usage, stopReason: 'stop', timestamp: Date.now() }
    queueMicrotask(() => {
      stream.push({ type: 'start', partial: output })
      if (last?.role === 'toolResult') {
        // Paced (figure 3b): the deltas in their own macrotasks; unpaced, all in this microtask.
        if (wait) void pushText(stream, output, deltas, wait).then(() => finish(stream, output))
        else {
          pushText(stream, output, deltas)
          finish(stream, output)
        }
        return
      }
      const call = { type: 'toolCall', id: `call_${++calls}`, name: TOOL_NAME, arguments: {} }
      output.content.push(call)
      stream.push({ type: 'toolcall_start', contentIndex: 0, partial: output })
      stream.push({ type: 'toolcall_delta', contentIndex: 0, delta: TOOL_ARGS_JSON, partial: output })
      call.arguments = JSON.parse(TOOL_ARGS_JSON)
      stream.push({ type: 'toolcall_end', contentIndex: 0, toolCall: call, partial: output })
      output.stopReason = 'toolUse'
      finish(stream, output)
    })
    return stream
  }
}

/** The answer's text block, delta by delta; with `wait`, awaited before each delta (returns a promise). */
function pushText(stream, output, deltas, wait) {
  const block = { type: 'text', text: '' }
  output.content.push(block)
  stream.push({ type: 'text_start', contentIndex: 0, partial: output })
  const push = (delta) => {
    block.text += delta
    stream.push({ type: 'text_delta', contentIndex: 0, delta, partial: output })
  }
  const end = () => stream.push({ type: 'text_end', contentIndex: 0, content: block.text, partial: output })
  if (!wait) {
    for (const delta of deltas) push(delta)
    return end()
  }
  return (async () => {
    for (const delta of deltas) {
      await wait()
      push(delta)
    }
    end()
  })()
}

function finish(stream, output) {
  stream.push({ type: 'done', reason: output.stopReason, message: output })
  stream.end(output)
}

function makeAgent(options, messages) {
  return new Agent({ initialState: { systemPrompt: '', model: piModel, tools, messages }, streamFn: streamFn(options) })
}

export async function contender(variant, options) {
  if (variant !== 'memory') throw new Error(`unknown pi variant ${variant}`)
  // One real turn gives the shape of a turn's messages; the history repeats it (fresh ids).
  const probe = makeAgent(options, [])
  await probe.prompt('question 0')
  const turn = JSON.stringify(probe.state.messages)
  const history = []
  for (let i = 0; history.length < options.prior; i++) history.push(...JSON.parse(turn.replaceAll('call_1', `h_${i}`)))
  const historyJson = JSON.stringify(history)
  return {
    priorMessages: history.length,
    // Figure 6: one idle session = a pi `Agent` (its state: messages, tools, model; its own
    // stream function) holding its own copy of the history, optionally after one real turn.
    async idle(runTurn) {
      const agent = makeAgent(options, JSON.parse(historyJson))
      if (runTurn) await agent.prompt('hello')
      return agent
    },
    async fresh() {
      const agent = makeAgent(options, history)
      let deltas = 0
      agent.subscribe((event) => {
        if (event.type === 'message_update' && event.assistantMessageEvent.type === 'text_delta') deltas++
      })
      return {
        async turn(text) {
          deltas = 0
          await agent.prompt(text)
          return deltas
        },
        close() {},
      }
    },
    cleanup() {},
  }
}
