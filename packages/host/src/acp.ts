import { createRequire } from 'node:module'
import { randomUUID } from 'node:crypto'
import * as acp from '@agentclientprotocol/sdk'
import type { InboxSplice, SessionEvent, Store, UserMessage } from '@bosun/core'
import { createUserMessage, messageText } from '@bosun/core'
import { DEFAULT_IDLE_MS } from './limits.js'
import { InboxFold } from './log.js'
import { PROMPT_CAPABILITIES, promptContent } from './acp-prompt.js'
import { SessionManager, type AgentFactory, type LiveSession } from './sessions.js'

const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version

export interface AcpAgentOptions {
  agentFactory: AgentFactory
  store: Store
  /** The client's messages (the process's stdin). */
  input: ReadableStream<Uint8Array>
  /** Where the agent writes (the process's stdout). */
  output: WritableStream<Uint8Array>
  /** Idle sessions are closed after this long. Default 5 min. */
  idleMs?: number
}

type Update = acp.SessionNotification['update']

const textOf = (blocks: readonly { type: string }[]): string => messageText({ content: blocks })

/** A user message replayed, a chunk per block in its order: its texts, and its images as image chunks. */
function userChunks(message: UserMessage): Update[] {
  return message.content.flatMap((block): Update[] => {
    if (block.type === 'image') return [{ sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: block.mediaType, data: block.data } }]
    return block.text === '' ? [] : [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: block.text } }]
  })
}

/** A tool's content as one ACP text content item. */
function toolContent(content: unknown): { type: 'content'; content: { type: 'text'; text: string } }[] {
  const text = typeof content === 'string' ? content : Array.isArray(content) ? textOf(content as { type: string; text?: string }[]) : JSON.stringify(content)
  return text === '' ? [] : [{ type: 'content', content: { type: 'text', text } }]
}

/** The model's tool calls of an `assistant/message`, announced as ACP `tool_call`s (pending). */
function toolCallsOf(blocks: readonly { type: string; id?: string; name?: string; arguments?: string }[]): Update[] {
  const out: Update[] = []
  for (const block of blocks) {
    if (block.type !== 'tool-call' || block.id === undefined) continue
    let rawInput: unknown = block.arguments
    try {
      rawInput = JSON.parse(block.arguments ?? '')
    } catch {
      // arguments that are not JSON stay the raw string the model sent
    }
    out.push({ sessionUpdate: 'tool_call', toolCallId: block.id, title: block.name ?? 'tool', name: block.name ?? null, kind: 'other', status: 'pending', rawInput })
  }
  return out
}

/** Waits for the session's next event (or a timeout), reading the log by seq: the writer never waits. */
function nextEvent(live: LiveSession, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const listener = (): void => {
      live.listeners.delete(listener)
      signal?.removeEventListener('abort', listener)
      resolve()
    }
    live.listeners.add(listener)
    signal?.addEventListener('abort', listener, { once: true })
  })
}

/**
 * Runs Bosun sessions as an Agent Client Protocol agent over a stream pair (stdio for
 * `bosun acp`): `session/new`, `session/load` (replayed from the log), `session/prompt` (a
 * prompt that arrives while a turn runs is queued as a follow-up and answered when its own turn
 * ends), `session/cancel` (aborts the turn and cancels the queued prompts). Tool calls travel as
 * `tool_call` (pending, when the model's message names them), then `tool_call_update`s:
 * `in_progress` at `tool/call`, `completed` or `failed` with the result at `tool/result`.
 */
export function runAcpAgent(options: AcpAgentOptions): { closed: Promise<void>; close(): Promise<void> } {
  const sessions = new SessionManager(options.store, options.agentFactory, options.idleMs ?? DEFAULT_IDLE_MS)

  const updatesOf = (event: SessionEvent, replay: boolean): Update[] => {
    const data = event.data as Record<string, unknown>
    switch (event.type) {
      case 'user/message': {
        if (!replay) return []
        const message = event.data as UserMessage
        return userChunks(message)
      }
      case 'assistant/chunk': {
        if (replay) return []
        const chunk = data.chunk as { type: string; text?: string }
        if (chunk.type === 'text-delta' && chunk.text) return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk.text } }]
        if (chunk.type === 'reasoning-delta' && chunk.text) return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: chunk.text } }]
        return []
      }
      case 'assistant/message': {
        // Live, the text already went out as chunks; the tool calls are announced either way.
        const blocks = (data.message as { content: { type: string; text?: string; id?: string; name?: string; arguments?: string }[] }).content
        const out: Update[] = []
        for (const block of replay ? blocks : []) {
          if (block.type === 'reasoning' && block.text) out.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: block.text } })
          if (block.type === 'text' && block.text) out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: block.text } })
        }
        return [...out, ...toolCallsOf(blocks)]
      }
      case 'tool/call':
        // The tool started (a call the loop never starts — max-tokens — stays pending).
        return [{ sessionUpdate: 'tool_call_update', toolCallId: data.callId as string, status: 'in_progress' }]
      case 'tool/result': {
        const failed = data.isError === true
        return [{ sessionUpdate: 'tool_call_update', toolCallId: data.callId as string, status: failed ? 'failed' : 'completed', content: toolContent(data.content), rawOutput: data.content }]
      }
      default:
        return []
    }
  }

  const app = acp.agent({ name: 'bosun' })
    .onRequest('initialize', () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: PROMPT_CAPABILITIES },
      agentInfo: { name: 'bosun', version: VERSION },
    }))
    .onRequest('session/new', async () => {
      const id = randomUUID()
      await sessions.use(id, { create: true })
      return { sessionId: id }
    })
    .onRequest('session/load', async ({ params, client }) => {
      const live = await sessions.use(params.sessionId)
      const session = live.agent.session
      // By seq, not over an array kept across the awaits: an array read before an idle seal stops
      // growing at it (docs/architecture.md, "Sealed log pages").
      for (let seq = 0; seq < session.length; seq++) {
        for (const update of updatesOf(session.eventAt(seq)!, true)) await client.notify('session/update', { sessionId: params.sessionId, update })
      }
    })
    .onRequest('session/prompt', async ({ params, client }) => {
      // Refused before the session opens when it has nothing to read or a block Bosun does not take.
      const content = promptContent(params.prompt)
      const live = await sessions.use(params.sessionId)
      const release = sessions.hold(live)
      try {
        const message = createUserMessage(content, { id: randomUUID(), source: { kind: 'user', via: 'acp', delivery: 'followup' } })
        const session = live.agent.session
        let cursor = session.length - 1
        let ourTurn: number | undefined
        let currentTurn: number | undefined
        // The queues as the log has them before the admission (the live inbox, at the tail), so the
        // claim can be followed by id without folding the log from seq 0 on every prompt.
        const fold = InboxFold.continuing(live.agent.inbox, session.header.seedLength ?? 0)
        currentTurn = live.agent.status === 'running' ? live.agent.turn : undefined
        live.agent.followup(message)
        for (;;) {
          while (cursor < session.length - 1) {
            const event = session.events[++cursor]!
            if (event.type === 'turn/start') currentTurn = (event.data as { turn: number }).turn
            if (event.type === 'agent/inbox/spliced') {
              const s = event.data as InboxSplice
              const removed = fold.apply(event) ?? []
              if (ourTurn === undefined && s.outcome !== 'moved' && removed.some((m) => m.id === message.id) && !s.inserted.some((m) => m.id === message.id)) {
                if (s.outcome === 'canceled') return { stopReason: 'cancelled' as const }
                ourTurn = currentTurn
              }
              continue
            }
            if (ourTurn === undefined || (event.data as { turn?: number }).turn !== ourTurn) continue
            if (event.type === 'turn/end') {
              const kind = (event.data as { reason: { kind: string } }).reason.kind
              if (kind === 'aborted' || kind === 'interrupted') return { stopReason: 'cancelled' as const }
              if (kind === 'max-tokens') return { stopReason: 'max_tokens' as const }
              if (kind === 'blocked') return { stopReason: 'refusal' as const }
              if (kind === 'error') throw new Error('The turn failed: `bosun log ' + params.sessionId + '` shows why.')
              return { stopReason: 'end_turn' as const }
            }
            for (const update of updatesOf(event, false)) await client.notify('session/update', { sessionId: params.sessionId, update })
          }
          if (live.closed === true) return { stopReason: 'cancelled' as const }
          await nextEvent(live)
        }
      } finally {
        release()
      }
    })
    .onNotification('session/cancel', async ({ params }) => {
      const live = await sessions.peek(params.sessionId)
      live?.agent.cancel({ keepInbox: false })
    })

  const connection = app.connect(acp.ndJsonStream(options.output, options.input))
  const closed = connection.closed.then(async () => {
    await sessions.close()
  })
  return {
    closed,
    async close() {
      connection.close()
      await closed
    },
  }
}
