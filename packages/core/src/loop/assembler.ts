import { BosunError, ErrorCodes } from '../errors.js'
import type { ModelChunk, ModelFinishReason, ModelUsage } from '../model.js'
import type { AssistantBlock, AssistantMessage, ToolCallBlock } from '../session/messages.js'

const FINISH: readonly string[] = ['stop', 'tool-calls', 'max-tokens', 'content-filter']

/**
 * Assembles stream chunks into one assistant message: consecutive text (or reasoning) deltas
 * join one block; tool-call deltas are joined by `index` in order of first appearance.
 */
export class BlockAssembler {
  readonly #blocks: AssistantBlock[] = []
  readonly #calls = new Map<number, { -readonly [K in keyof ToolCallBlock]: ToolCallBlock[K] }>()
  #usage: ModelUsage | undefined
  #finish: ModelFinishReason | undefined

  constructor(private readonly idPrefix: string) {}

  /** Checks the chunk's shape (MALFORMED_CHUNK) and folds it in. */
  push(chunk: ModelChunk): void {
    switch (chunk?.type) {
      case 'text-delta': {
        requireString(chunk.text, 'text-delta.text')
        const last = this.#last()
        if (last?.type === 'text') (last as { text: string }).text += chunk.text
        else this.#blocks.push({ type: 'text', text: chunk.text })
        return
      }
      case 'reasoning-delta': {
        requireString(chunk.text, 'reasoning-delta.text')
        let last = this.#last()
        // A signature closes a reasoning block (Anthropic sends it last): new text after it is a
        // new block, so two consecutive thinking blocks keep their own signatures.
        const closed = last?.type === 'reasoning' && last.signature !== undefined && chunk.text !== ''
        if (last?.type !== 'reasoning' || closed) {
          last = { type: 'reasoning', text: '' }
          this.#blocks.push(last)
        }
        const block = last as { text: string; signature?: string; provider?: string }
        block.text += chunk.text
        if (chunk.signature !== undefined) block.signature = (block.signature ?? '') + chunk.signature
        if (chunk.provider !== undefined) block.provider = chunk.provider
        return
      }
      case 'tool-call-delta': {
        if (!Number.isSafeInteger(chunk.index) || chunk.index < 0) malformed('tool-call-delta.index must be a non-negative integer')
        let call = this.#calls.get(chunk.index)
        if (!call) {
          call = { type: 'tool-call', id: '', name: '', arguments: '' }
          this.#calls.set(chunk.index, call)
          this.#blocks.push(call)
        }
        if (chunk.id !== undefined) call.id = requireString(chunk.id, 'tool-call-delta.id')
        if (chunk.name !== undefined) call.name += requireString(chunk.name, 'tool-call-delta.name')
        if (chunk.argumentsDelta !== undefined) call.arguments += requireString(chunk.argumentsDelta, 'tool-call-delta.argumentsDelta')
        return
      }
      case 'usage':
        if (typeof chunk.usage !== 'object' || chunk.usage === null) malformed('usage.usage must be an object')
        this.#usage = { ...this.#usage, ...chunk.usage }
        return
      case 'finish':
        if (!FINISH.includes(chunk.reason)) malformed(`finish.reason must be one of ${FINISH.join(', ')}`)
        this.#finish = chunk.reason
        return
      default:
        malformed(`unknown chunk type ${JSON.stringify((chunk as { type?: unknown } | undefined)?.type)}`)
    }
  }

  /**
   * The last block, or undefined: never `blocks[-1]`. Reading index -1 of an empty array (the first
   * chunk of every call) is a named-property miss that turns the read's inline cache megamorphic,
   * and every later delta of the process then paid a megamorphic keyed load (~70 instructions,
   * callgrind) for what is an array element read.
   */
  #last(): AssistantBlock | undefined {
    const blocks = this.#blocks
    return blocks.length === 0 ? undefined : blocks[blocks.length - 1]
  }

  get hasContent(): boolean {
    return this.#blocks.length > 0
  }

  /** Frozen: each `usage` chunk makes a new object, none is changed in place. */
  get usage(): ModelUsage | undefined {
    return this.#usage === undefined ? undefined : Object.freeze(this.#usage)
  }

  get finish(): ModelFinishReason | undefined {
    return this.#finish
  }

  /** Tool calls in the order the model gave them, with ids filled in where the model gave none. */
  get toolCalls(): ToolCallBlock[] {
    return this.#blocks.filter((block): block is ToolCallBlock => block.type === 'tool-call')
  }

  /**
   * The assembled message, deep-frozen. `withoutToolCalls` (an interrupted or truncated call) keeps text and
   * reasoning only: a tool call cut off mid-stream or at the output limit may be incomplete.
   */
  message(withoutToolCalls: boolean): AssistantMessage {
    let n = 0
    for (const block of this.#blocks) {
      if (block.type === 'tool-call' && block.id === '') (block as { id: string }).id = `${this.idPrefix}_${n}`
      if (block.type === 'tool-call') n++
    }
    const content = withoutToolCalls ? this.#blocks.filter((block) => block.type !== 'tool-call') : this.#blocks
    // Deep-frozen copies of strings the chunks' copies carried: logged as owned data, not copied again.
    return Object.freeze({ role: 'assistant', content: Object.freeze(content.map(frozenBlock)) }) as AssistantMessage
  }
}

/**
 * A frozen copy of a block, its text flattened: `+=` per delta leaves a rope of one V8 string node
 * (32 bytes) per delta, which the log would keep alive for the life of the session; reading a
 * character makes V8 flatten it into one string, and the nodes become garbage at once.
 */
function frozenBlock(block: AssistantBlock): AssistantBlock {
  if (block.type !== 'tool-call') block.text.charCodeAt(0)
  else block.arguments.charCodeAt(0)
  return Object.freeze({ ...block })
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string') malformed(`${what} must be a string`)
  return value as string
}

function malformed(problem: string): never {
  throw new BosunError(ErrorCodes.MALFORMED_CHUNK, `The model adapter sent a malformed chunk: ${problem}.`)
}
