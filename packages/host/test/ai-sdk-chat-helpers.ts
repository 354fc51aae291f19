// What the AI SDK chat tests read a chat with: ai 6's streams read to their end, and the chat
// state useChat keeps, for an AbstractChat in Node.
import { expect } from 'vitest'
import { AbstractChat, type ChatState, type ChatStatus, type UIMessage, type UIMessageChunk } from 'ai'
import { definePlugin } from '@bosun/core'

export const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

/** Blocks (a pre-step reject, metadata { rule: 'no-secrets' }) any turn whose input mentions a secret: the turn logs no user/message. */
export const guard = definePlugin({
  name: 'guard',
  setup({ hooks }) {
    hooks.preStep.tap('guard', (decision) =>
      decision.kind === 'enter' && decision.messages.some((m) => m.content.some((b) => b.type === 'text' && b.text.includes('secret')))
        ? { kind: 'reject', metadata: { rule: 'no-secrets' } }
        : decision,
    )
  },
})

/** Reads a chat stream into `chunks` until it ends; `done` says whether it has. */
export function collect(stream: ReadableStream<UIMessageChunk>): { chunks: UIMessageChunk[]; readonly done: boolean; ended: Promise<void> } {
  const state = { chunks: [] as UIMessageChunk[], done: false, ended: Promise.resolve() }
  state.ended = (async () => {
    for await (const chunk of stream) state.chunks.push(chunk)
    state.done = true
  })()
  return state
}

/** The chat state useChat keeps (a plain array here instead of React state). */
export class PlainState implements ChatState<UIMessage> {
  messages: UIMessage[] = []
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  pushMessage = (message: UIMessage): void => { this.messages = [...this.messages, message] }
  popMessage = (): void => { this.messages = this.messages.slice(0, -1) }
  replaceMessage = (index: number, message: UIMessage): void => { this.messages = this.messages.map((m, i) => (i === index ? message : m)) }
  snapshot = <T>(value: T): T => structuredClone(value)
}

/** A chat as useChat wraps one, on `transport`, starting with `messages` (useChat's `messages` option). */
export class PlainChat extends AbstractChat<UIMessage> {
  constructor(id: string, transport: ConstructorParameters<typeof AbstractChat<UIMessage>>[0]['transport'], messages: UIMessage[] = []) {
    super({ id, transport, state: Object.assign(new PlainState(), { messages }) })
  }
}

export const textOf = (chunks: UIMessageChunk[]): string => chunks.filter((c) => c.type === 'text-delta').map((c) => (c as { delta: string }).delta).join('')
/** A stream's parts without the queue snapshots (transient: what the queues are as each stream reads them). */
export const lasting = (chunks: UIMessageChunk[]): UIMessageChunk[] => chunks.filter((c) => c.type !== 'data-bosun-queue')
/** The text of `message`'s text parts. */
export const messageText = (message: UIMessage): string => message.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')

type Collected = ReturnType<typeof collect>

/**
 * What the steer tests' turn streams: its first step answers 'first answer', the steer (id s1,
 * 'be brief') joins it and its second step answers 'brief answer'. The first stream has it all;
 * the steer's stream is the same turn from its start, the same parts, and ends.
 */
export function expectSteeredTurn(first: Collected, steer: Collected): void {
  expect(textOf(first.chunks)).toBe('first answerbrief answer')
  expect(first.chunks.find((c) => c.type === 'data-bosun-steer')).toMatchObject({ id: 's1', data: { id: 's1', text: 'be brief' } })
  expect(steer.chunks[0]).toEqual({ type: 'start', messageId: 'bosun-turn-1' })
  expect(steer.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
  expect(lasting(steer.chunks)).toEqual(lasting(first.chunks))
}

/** After both of useChat's requests of the steer test ended: one answer, the whole turn. */
export function expectWholeTurnIn(chat: PlainChat): void {
  const answers = chat.messages.filter((m) => m.role === 'assistant')
  expect(answers.map((m) => m.id)).toEqual(['bosun-turn-1'])
  expect(messageText(answers[0]!)).toBe('first answerbrief answer')
  expect(chat.status).toBe('ready')
}
