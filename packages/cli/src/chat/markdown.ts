import type { Style } from '../output.js'

/**
 * Renders a model's Markdown answer for a terminal, one finished line at a time (so it can follow
 * a stream): headings in bold without their `#`, bullets as `•`, numbered items kept, block
 * quotes behind a dim bar, fenced code blocks indented in cyan with their fences dimmed, and
 * inline `code`, **bold** and *emphasis*. Only the terminal view changes: the log and a piped
 * answer keep the model's text exactly (`bosun chat --raw` shows it as is on a terminal too).
 *
 * The text it gets is already terminal-safe; it adds only the CLI's own styles.
 */
export class MarkdownLines {
  #fence: string | undefined

  constructor(private readonly style: Style) {}

  /** One finished line (without its newline), rendered. */
  line(text: string): string {
    const { style } = this
    const fence = /^\s*(`{3,}|~{3,})\s*([\w+-]*)\s*$/.exec(text)
    if (this.#fence !== undefined) {
      if (fence && fence[1]!.startsWith(this.#fence)) {
        this.#fence = undefined
        return style.dim('  └')
      }
      return style.cyan(`  │ ${text}`)
    }
    if (fence) {
      this.#fence = fence[1]
      return style.dim(`  ┌${fence[2] ? ` ${fence[2]}` : ''}`)
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(text)
    if (heading) return style.bold(heading[1]!.length === 1 ? heading[2]!.toUpperCase() : heading[2]!)
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text)
    if (bullet) return `${bullet[1]}• ${this.#inline(bullet[2]!)}`
    const numbered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(text)
    if (numbered) return `${numbered[1]}${numbered[2]}. ${this.#inline(numbered[3]!)}`
    const quote = /^\s*>\s?(.*)$/.exec(text)
    if (quote) return `${style.dim('│')} ${style.dim(this.#inline(quote[1]!))}`
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(text)) return style.dim('─'.repeat(20))
    return this.#inline(text)
  }

  /** Ends the answer: an unclosed code block does not leak into the next one. */
  reset(): void {
    this.#fence = undefined
  }

  #inline(text: string): string {
    const { style } = this
    // Code spans first, so that `**` inside them stays literal.
    return text
      .split(/(`[^`]+`)/)
      .map((part) =>
        part.length > 2 && part.startsWith('`') && part.endsWith('`')
          ? style.cyan(part.slice(1, -1))
          : part
              .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, (_, bold: string) => style.bold(bold))
              .replace(/(^|[^*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?![*\w])/g, (_, before: string, em: string) => before + style.italic(em)),
      )
      .join('')
  }
}
