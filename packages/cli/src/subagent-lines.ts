import { oneLine, type Style } from './output.js'

/**
 * The lines `bosun log` shows for `@bosun/plugin-subagents`' events in a parent's log (the CLI
 * does not depend on the plugin: the data shapes are read defensively, as a hand-made or older log
 * may lack a field). Data given here is already made terminal-safe by the timeline.
 *
 *   ⑂ spawned background agent researcher 5f0c… (depth 1)
 *   ⑂ settled agent 5f0c… #1 · completed · background · researcher: "the three slowest steps are…"
 *
 * A settlement names the mode and profile of its spawn, which this remembers.
 */
export class SubagentLines {
  readonly #style: Style
  readonly #max: number
  readonly #spawned = new Map<string, { mode?: string; agent?: string }>()

  constructor(style: Style, maxText: number) {
    this.#style = style
    this.#max = maxText
  }

  spawned(data: Record<string, unknown>): string {
    const childId = text(data.childId) ?? '?'
    const mode = text(data.mode)
    const agent = text(data.agent)
    this.#spawned.set(childId, { ...(mode ? { mode } : {}), ...(agent ? { agent } : {}) })
    const what = [mode, 'agent', agent].filter(Boolean).join(' ')
    const depth = typeof data.depth === 'number' ? this.#style.dim(` (depth ${data.depth})`) : ''
    return `${this.#style.blue('⑂ spawned')} ${what} ${childId}${depth}`
  }

  settled(data: Record<string, unknown>): string {
    const s = this.#style
    const childId = text(data.childId) ?? '?'
    const spawn = this.#spawned.get(childId)
    const reason = text(data.reason)
    const facts = [
      reason === undefined ? undefined : reason === 'completed' ? s.green(reason) : s.yellow(reason),
      spawn?.mode,
      spawn?.agent,
    ].filter((fact): fact is string => fact !== undefined)
    const epoch = typeof data.epoch === 'number' ? ` #${data.epoch}` : ''
    const answer = text(data.answer)
    // The answer on one line, cut: the whole of it is in the message or tool result around this line.
    const preview = answer === undefined || answer.trim() === '' ? '' : `: ${JSON.stringify(oneLine(answer, this.#max))}`
    return `${s.blue('⑂ settled')} agent ${childId}${epoch}${facts.length > 0 ? ` · ${facts.join(' · ')}` : ''}${preview}`
  }

  sent(data: Record<string, unknown>): string {
    return `${this.#style.blue('⑂ sent')} a follow-up to agent ${text(data.childId) ?? '?'}`
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
