/**
 * A small scanner for JavaScript/TypeScript config files: it knows where strings, template
 * literals and comments are, so that the brackets of a `plugins: [...]` array can be matched and
 * its elements told apart without a parser. Anything it cannot follow makes the caller print the
 * line to add instead of editing.
 */

/** Index just past the string, template or comment that starts at `at`, or `at` when none starts there. */
export function skipNonCode(text: string, at: number): number {
  const char = text[at]
  const next = text[at + 1]
  if (char === '/' && next === '/') {
    const end = text.indexOf('\n', at)
    return end === -1 ? text.length : end
  }
  if (char === '/' && next === '*') {
    const end = text.indexOf('*/', at + 2)
    return end === -1 ? text.length : end + 2
  }
  if (char === '"' || char === "'" || char === '`') {
    for (let i = at + 1; i < text.length; i++) {
      if (text[i] === '\\') i++
      else if (text[i] === char) return i + 1
      else if (char !== '`' && text[i] === '\n') return i
    }
    return text.length
  }
  return at
}

/** Index of the bracket closing the one at `open` (`[`, `{`, `(`), or -1. */
export function matchingBracket(text: string, open: number): number {
  let depth = 0
  for (let i = open; i < text.length; ) {
    const skipped = skipNonCode(text, i)
    if (skipped !== i) {
      i = skipped
      continue
    }
    const char = text[i]!
    if ('[{('.includes(char)) depth++
    else if (']})'.includes(char) && --depth === 0) return i
    i++
  }
  return -1
}

/** Where each code-level match of `pattern` starts (matches inside strings and comments are skipped). */
export function findInCode(text: string, pattern: RegExp): RegExpExecArray[] {
  const found: RegExpExecArray[] = []
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)
  const code = blankNonCode(text)
  for (let match = global.exec(code); match !== null; match = global.exec(code)) found.push(match)
  return found
}

/** The elements of the array whose brackets are at `open` and `close`: each one's start and end (trimmed), in order. */
export function arrayElements(text: string, open: number, close: number): { start: number; end: number }[] {
  const elements: { start: number; end: number }[] = []
  const code = blankNonCode(text)
  let depth = 0
  let start = open + 1
  const push = (end: number) => {
    const slice = code.slice(start, end)
    const lead = slice.length - slice.trimStart().length
    const trail = slice.length - slice.trimEnd().length
    if (slice.trim() !== '') elements.push({ start: start + lead, end: end - trail })
  }
  for (let i = open + 1; i < close; i++) {
    const char = code[i]!
    if ('[{('.includes(char)) depth++
    else if (']})'.includes(char)) depth--
    else if (char === ',' && depth === 0) {
      push(i)
      start = i + 1
    }
  }
  push(close)
  return elements
}

/** The text with every string's content, template and comment replaced by spaces (offsets kept). Quotes stay. */
export function blankNonCode(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; ) {
    const skipped = skipNonCode(text, i)
    if (skipped === i) {
      out += text[i]
      i++
      continue
    }
    const piece = text.slice(i, skipped)
    const isString = piece[0] === '"' || piece[0] === "'" || piece[0] === '`'
    const blanked = piece.replace(/[^\n]/g, ' ')
    out += isString ? `${piece[0]}${blanked.slice(1, -1)}${piece.length > 1 ? piece.at(-1) : ''}` : blanked
    i = skipped
  }
  return out
}

/** The value of the first string literal in `text` (`'retry'`, `"@acme/x"`), or undefined. */
export function firstStringLiteral(text: string): string | undefined {
  const match = /^[\s[]*(['"])((?:\\.|(?!\1).)*)\1/.exec(text)
  return match ? match[2]!.replace(/\\(.)/g, '$1') : undefined
}

/** The file's line break: `\r\n` when it has one (a file checked out on Windows), else `\n` — what an edit writes, so that a file never ends up with both. */
export function lineBreakOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n'
}
