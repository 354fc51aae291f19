// LangGraph: `createReactAgent` (from @langchain/langgraph/prebuilt) with a minimal
// BaseChatModel subclass (`bindTools` returns itself; `_streamResponseChunks` yields prepared
// chunks: one AIMessageChunk carrying the tool-call chunk, or the answer's text chunks), a zod
// `tool()`, and a checkpointer: `MemorySaver` or `SqliteSaver` (better-sqlite3 12.x). The
// caller streams with `streamMode: 'messages'` (how LangGraph users receive tokens) and counts
// the agent node's text chunks. Each measured session is its own thread, seeded with the prior
// history as input of the (untimed) warm-up turn.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ChatGenerationChunk } from '@langchain/core/outputs'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { z } from 'zod'
import { TOOL_ARGS_JSON, TOOL_DESCRIPTION, TOOL_NAME, answerDeltas, toolResult } from '../lib/conversation.mjs'

export class BenchChatModel extends BaseChatModel {
  constructor(deltas) {
    super({})
    this.deltas = deltas
    this.calls = 0
  }
  _llmType() { return 'bench' }
  bindTools() { return this }
  // As LangChain's provider integrations (and its own fake streaming models) do, each chunk is
  // reported to `runManager.handleLLMNewToken`: that is what feeds `streamMode: 'messages'`.
  async *_streamResponseChunks(messages, _options, runManager) {
    const last = messages[messages.length - 1]
    if (last?._getType() === 'tool') {
      for (const text of this.deltas) {
        const chunk = new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text }) })
        yield chunk
        await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk })
      }
    } else {
      const id = `call_${++this.calls}`
      const chunk = new ChatGenerationChunk({
        text: '',
        message: new AIMessageChunk({ content: '', tool_call_chunks: [{ type: 'tool_call_chunk', name: TOOL_NAME, args: TOOL_ARGS_JSON, id, index: 0 }] }),
      })
      yield chunk
      await runManager?.handleLLMNewToken('', undefined, undefined, undefined, undefined, { chunk })
    }
  }
  async _generate(messages, options, runManager) {
    let chunk
    for await (const c of this._streamResponseChunks(messages, options, runManager)) chunk = chunk ? chunk.concat(c) : c
    return { generations: [{ text: chunk.text, message: new AIMessage({ content: chunk.message.content, tool_calls: chunk.message.tool_calls }) }] }
  }
}

export const lookup = tool(async ({ key }) => toolResult(key), {
  name: TOOL_NAME, description: TOOL_DESCRIPTION, schema: z.object({ key: z.string() }),
})

/** `prior` messages of whole scripted turns (user, tool call, tool result, answer). */
export function historyOf(prior, deltas) {
  const messages = []
  for (let i = 0; messages.length < prior; i++) {
    const id = `h_${i}`
    messages.push(
      new HumanMessage({ content: `question ${i}`, id: `${id}_u` }),
      new AIMessage({ content: '', id: `${id}_a1`, tool_calls: [{ type: 'tool_call', name: TOOL_NAME, args: { key: 'k' }, id }] }),
      new ToolMessage({ content: toolResult('k'), tool_call_id: id, name: TOOL_NAME, id: `${id}_t` }),
      new AIMessage({ content: deltas.join(''), id: `${id}_a2` }),
    )
  }
  return messages
}

export async function contender(variant, options) {
  let dir
  let saverFactory
  let files = []
  if (variant === 'memory') saverFactory = () => new MemorySaver()
  else if (variant === 'sqlite') {
    const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite')
    dir = mkdtempSync(join(tmpdir(), 'lg-bench-'))
    let n = 0
    saverFactory = () => { const file = join(dir, `c${n++}.db`); const saver = SqliteSaver.fromConnString(file); files = [file, `${file}-wal`]; return saver }
  } else throw new Error(`unknown langgraph variant ${variant}`)
  const deltas = answerDeltas(options.chunks, options.chunkSize)
  const history = historyOf(options.prior, deltas)
  let n = 0
  // Figure 6: one compiled graph and one MemorySaver shared by all sessions (the idiomatic
  // server setup); a session is a thread whose checkpoints live in the saver. Its history is
  // loaded with `graph.updateState` as the agent node (no model call), then optionally one real
  // turn. What is retained per session is the thread's checkpoints (+ writes) in the saver.
  let idleGraph
  return {
    priorMessages: history.length,
    async idle(runTurn) {
      idleGraph ??= createReactAgent({ llm: new BenchChatModel(deltas), tools: [lookup], checkpointer: new MemorySaver() })
      const config = { configurable: { thread_id: `idle-${n++}` } }
      await idleGraph.updateState(config, { messages: historyOf(options.prior, deltas) }, 'agent')
      if (runTurn) for await (const _ of await idleGraph.stream({ messages: [new HumanMessage('hello')] }, { ...config, streamMode: 'messages' }));
      return config.configurable.thread_id
    },
    async fresh() {
      const saver = saverFactory()
      const graph = createReactAgent({ llm: new BenchChatModel(deltas), tools: [lookup], checkpointer: saver })
      const config = { configurable: { thread_id: `t${n++}` }, streamMode: 'messages' }
      const run = async (input) => {
        let count = 0
        for await (const [message, meta] of await graph.stream(input, config)) {
          if (meta.langgraph_node === 'agent' && typeof message.content === 'string' && message.content !== '') count++
        }
        return count
      }
      return {
        // The first call (the warm-up turn) carries the prior history.
        first: (text) => run({ messages: [...history, new HumanMessage(text)] }),
        turn: (text) => run({ messages: [new HumanMessage(text)] }),
        close() { saver.db?.close?.() },
        files,
      }
    },
    // Figure 7: a thread on ONE shared compiled graph with ONE shared MemorySaver (the server
    // setup); `prior` history, if any, is the input of the first turn.
    async thread() {
      idleGraph ??= createReactAgent({ llm: new BenchChatModel(deltas), tools: [lookup], checkpointer: new MemorySaver() })
      const config = { configurable: { thread_id: `c-${n++}` }, streamMode: 'messages' }
      let first = history.length > 0
      return {
        async turn(text) {
          const messages = first ? [...history, new HumanMessage(text)] : [new HumanMessage(text)]
          first = false
          let count = 0
          for await (const [message, meta] of await idleGraph.stream({ messages }, config)) {
            if (meta.langgraph_node === 'agent' && typeof message.content === 'string' && message.content !== '') count++
          }
          return count
        },
        close() {},
      }
    },
    cleanup() {
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
