import { arrayElements, findInCode, firstStringLiteral, lineBreakOf, matchingBracket } from './source-scan.js'

/**
 * Edits a `bosun.config.ts` (or .mts/.js/.mjs) as text, so that its comments, formatting and code
 * stay as they are: a plugin entry is added to the `plugins: [...]` array literal (created inside
 * `defineConfig({` / `export default {` when there is none) or removed from it. Returns
 * `undefined` when the file does not have the one plain array literal this needs (a spread, a
 * variable, two `plugins:` keys…): the caller then prints the line to add.
 */
export function addToTs(text: string, entry: unknown): string | undefined {
  const quote = preferredQuote(text)
  const literal = renderLiteral(entry, quote)
  const eol = lineBreakOf(text)
  const array = pluginsArray(text)
  if (array === null) return undefined
  if (array === undefined) {
    const objects = findInCode(text, /(?:defineConfig\(\s*|export\s+default\s+)\{/)
    if (objects.length !== 1) return undefined
    const brace = objects[0]!.index + objects[0]![0].length - 1
    const close = matchingBracket(text, brace)
    if (close === -1) return undefined
    const indent = indentOfLineAfter(text, brace) ?? '  '
    const inner = text.slice(brace + 1, close)
    if (inner.trim() === '') return `${text.slice(0, brace + 1)}${eol}${indent}plugins: [${literal}],${eol}${text.slice(close)}`
    return `${text.slice(0, brace + 1)}${eol}${indent}plugins: [${literal}],${text.slice(brace + 1)}`
  }
  const { open, close } = array
  const elements = arrayElements(text, open, close)
  if (elements.length === 0) return `${text.slice(0, open + 1)}${literal}${text.slice(close)}`
  const last = elements.at(-1)!
  const between = text.slice(last.end, close)
  const hasComma = between.trimStart().startsWith(',')
  if (!text.slice(open, close).includes('\n')) {
    // One line: `[a, b]` → `[a, b, c]` (and `[a, b,]` → `[a, b, c]`).
    if (!hasComma) return `${text.slice(0, last.end)}, ${literal}${text.slice(last.end)}`
    const at = text.indexOf(',', last.end) + 1
    return `${text.slice(0, at)} ${literal}${text.slice(at)}`
  }
  // One element per line: a new line before the closing bracket, indented like the last element.
  const indent = lineIndent(text, last.start)
  const lineStart = text.lastIndexOf('\n', close - 1) + 1
  const closingOnOwnLine = text.slice(lineStart, close).trim() === ''
  const afterLast = hasComma ? text.indexOf(',', last.end) + 1 : last.end
  const head = `${text.slice(0, last.end)}${hasComma ? text.slice(last.end, afterLast) : ','}`
  if (closingOnOwnLine) {
    const rest = text.slice(afterLast, lineStart)
    return `${head}${rest}${rest.endsWith('\n') ? '' : eol}${indent}${literal},${eol}${text.slice(lineStart)}`
  }
  return `${head}${eol}${indent}${literal}${text.slice(afterLast)}`
}

/** Removes the entries whose name `matches`; `undefined` when it cannot be done safely or none matched. */
export function removeFromTs(text: string, matches: (name: string) => boolean): string | undefined {
  const array = pluginsArray(text)
  if (!array) return undefined
  const elements = arrayElements(text, array.open, array.close)
  const doomed = elements.filter((element) => {
    const name = firstStringLiteral(text.slice(element.start, element.end))
    return name !== undefined && matches(name)
  })
  if (doomed.length === 0) return undefined
  let result = text
  // From the last to the first, so that earlier offsets stay valid.
  for (const element of doomed.reverse()) {
    let start = element.start
    let end = element.end
    const after = result.slice(end)
    const comma = /^\s*,/.exec(after)
    if (comma) end += comma[0].length
    const lineStart = result.lastIndexOf('\n', start - 1) + 1
    const onOwnLine = result.slice(lineStart, start).trim() === '' && /^[ \t]*(\/\/[^\n]*)?(\n|$)/.test(result.slice(end))
    if (onOwnLine) {
      start = lineStart
      const newline = result.indexOf('\n', end)
      end = newline === -1 ? result.length : newline + 1
    } else if (!comma) {
      // The last element of a one-line array: take the comma before it.
      const before = /,\s*$/.exec(result.slice(array.open + 1, start))
      if (before) start = array.open + 1 + before.index
    } else {
      end += /^[ \t]*/.exec(result.slice(end))![0].length
    }
    result = result.slice(0, start) + result.slice(end)
  }
  return result
}

/** The code-level `plugins: [` array: its bracket offsets; `undefined` when there is none; `null` when it is not a plain literal or there are several. */
function pluginsArray(text: string): { open: number; close: number } | undefined | null {
  const keys = findInCode(text, /(?:^|[\s{,])['"]?plugins['"]?\s*:/)
  if (keys.length === 0) return undefined
  if (keys.length > 1) return null
  const match = keys[0]!
  const after = match.index + match[0].length
  const open = text.slice(after).search(/\S/)
  if (open === -1 || text[after + open] !== '[') return null
  const close = matchingBracket(text, after + open)
  return close === -1 ? null : { open: after + open, close }
}

/** A JavaScript literal for a JSON value: identifier keys unquoted, strings in the file's quote. */
export function renderLiteral(value: unknown, quote: "'" | '"'): string {
  if (typeof value === 'string') {
    const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
    return quote === "'" ? `'${escaped.replace(/'/g, "\\'")}'` : JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map((item) => renderLiteral(item, quote)).join(', ')}]`
  if (typeof value === 'object' && value !== null) {
    const fields = Object.entries(value).map(([key, item]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : renderLiteral(key, quote)}: ${renderLiteral(item, quote)}`)
    return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`
  }
  return JSON.stringify(value)
}

function preferredQuote(text: string): "'" | '"' {
  const single = (text.match(/'/g) ?? []).length
  const double = (text.match(/"/g) ?? []).length
  return double > single ? '"' : "'"
}

function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1
  return /^[ \t]*/.exec(text.slice(lineStart))![0]
}

/** The indentation of the first non-empty line after `at`, if that line is inside the same block. */
function indentOfLineAfter(text: string, at: number): string | undefined {
  const rest = text.slice(at + 1)
  const line = /\n([ \t]+)\S/.exec(rest)
  return line?.[1]
}
