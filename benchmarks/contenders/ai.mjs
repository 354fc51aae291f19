// Vercel AI SDK: `streamText` with one tool and `stopWhen: stepCountIs(5)`, the caller reading
// `textStream` and appending `(await result.response).messages` to its history, as a chat app
// does; the model is `MockLanguageModelV3` from `ai/test` whose `doStream` returns a prepared
// list of stream parts (tool-input-start/delta/end + tool-call, or text-start/delta…/end, then
// finish). The mock records every call (`doStreamCalls`); that is a push per step.
import { jsonSchema, stepCountIs, streamText, tool } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { TOOL_ARGS_JSON, TOOL_DESCRIPTION, TOOL_NAME, answerDeltas, pacer, toolResult } from '../lib/conversation.mjs'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

const tools = {
  [TOOL_NAME]: tool({
    description: TOOL_DESCRIPTION,
    inputSchema: jsonSchema({ type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }),
    execute: async ({ key }) => toolResult(key),
  }),
}

/** The parts as a stream that waits before each text delta (figure 3b), as a network stream would. */
function pacedStream(parts, wait) {
  let i = 0
  return new ReadableStream({
    async pull(controller) {
      if (i === parts.length) return controller.close()
      const part = parts[i++]
      if (part.type === 'text-delta') await wait()
      controller.enqueue(part)
    },
  })
}

function mockModel({ chunks, chunkSize, pace }) {
  const wait = pacer(pace)
  const text = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...answerDeltas(chunks, chunkSize).map((delta) => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]
  let calls = 0
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const last = prompt[prompt.length - 1]
      if (last?.role === 'tool') return { stream: wait ? pacedStream(text, wait) : convertArrayToReadableStream(text) }
      const id = `call_${++calls}`
      return {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'tool-input-start', id, toolName: TOOL_NAME },
          { type: 'tool-input-delta', id, delta: TOOL_ARGS_JSON },
          { type: 'tool-input-end', id },
          { type: 'tool-call', toolCallId: id, toolName: TOOL_NAME, input: TOOL_ARGS_JSON },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]),
      }
    },
  })
}

function chat(options, messages) {
  const model = mockModel(options)
  return async (text) => {
    messages.push({ role: 'user', content: text })
    const result = streamText({ model, messages, tools, stopWhen: stepCountIs(5) })
    let deltas = 0
    for await (const _ of result.textStream) deltas++
    messages.push(...(await result.response).messages)
    return deltas
  }
}

export async function contender(variant, options) {
  if (variant !== 'memory') throw new Error(`unknown ai variant ${variant}`)
  const probe = []
  await chat(options, probe)('question 0')
  const turn = JSON.stringify(probe)
  const history = []
  for (let i = 0; history.length < options.prior; i++) history.push(...JSON.parse(turn.replaceAll('call_1', `h_${i}`)))
  const historyJson = JSON.stringify(history)
  return {
    priorMessages: history.length,
    // Figure 6: the AI SDK keeps no session; what a user keeps per conversation is its
    // `ModelMessage[]` (its own copy of the history). The model and tools are shared; a real
    // turn (optional) goes through `streamText` and appends the response messages.
    async idle(runTurn) {
      const messages = JSON.parse(historyJson)
      if (runTurn) await chat(options, messages)('hello')
      return messages
    },
    async fresh() {
      const turn = chat(options, history.slice())
      return { turn, close() {} }
    },
    cleanup() {},
  }
}
