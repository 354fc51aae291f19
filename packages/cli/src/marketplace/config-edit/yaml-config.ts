import { lineBreakOf } from './source-scan.js'

/**
 * Edits a YAML config as text, keeping its comments and layout: an entry is a new `- …` item of
 * the top-level `plugins:` block sequence (written as a JSON flow value, which is YAML), or a new
 * `plugins:` block at the end; a one-line flow list `plugins: [a, b]` gets the entry before its
 * `]`. Returns `undefined` when the file's `plugins` is in a shape this does not edit.
 */
export function addToYaml(text: string, entry: unknown): string | undefined {
  const flow = JSON.stringify(entry)
  // Lines keep their `\r` in a CRLF file: a line written here gets one too, and a comment is
  // matched before it (`.` does not match `\r`).
  const cr = lineBreakOf(text) === '\r\n' ? '\r' : ''
  const lines = text.split('\n')
  const keyIndex = lines.findIndex((line) => /^plugins\s*:/.test(line))
  if (keyIndex === -1) {
    const body = text === '' || text.endsWith('\n') ? text : `${text}${cr}\n`
    return `${body}plugins:${cr}\n  - ${flow}${cr}\n`
  }
  const value = lines[keyIndex]!.replace(/\r$/, '').replace(/^plugins\s*:/, '').replace(/\s+#.*$/, '').trim()
  if (value.startsWith('[') && value.endsWith(']')) {
    const inner = value.slice(1, -1).trim()
    const comment = /\s+#.*$/.exec(lines[keyIndex]!.replace(/\r$/, ''))?.[0] ?? ''
    lines[keyIndex] = `plugins: [${inner === '' ? flow : `${inner.replace(/,\s*$/, '')}, ${flow}`}]${comment}${cr}`
    return lines.join('\n')
  }
  if (value !== '') return undefined
  const block = blockItems(lines, keyIndex)
  if (block === undefined) return undefined
  const indent = block.items[0] ? block.indent : '  '
  lines.splice(block.end, 0, `${indent}- ${flow}${cr}`)
  return lines.join('\n')
}

/** Removes the `- …` items whose entry name `matches`; `undefined` when none matched or the shape is not editable. */
export function removeFromYaml(text: string, matches: (name: string) => boolean): string | undefined {
  const lines = text.split('\n')
  const keyIndex = lines.findIndex((line) => /^plugins\s*:/.test(line))
  if (keyIndex === -1) return undefined
  const value = lines[keyIndex]!.replace(/\r$/, '').replace(/^plugins\s*:/, '').replace(/\s+#.*$/, '').trim()
  if (value !== '') return undefined
  const block = blockItems(lines, keyIndex)
  if (block === undefined) return undefined
  const doomed = block.items.filter((item) => {
    const name = itemName(lines[item.start]!)
    return name !== undefined && matches(name)
  })
  if (doomed.length === 0) return undefined
  for (const item of doomed.reverse()) lines.splice(item.start, item.end - item.start)
  // A block left with no item would read as `plugins: null`: make it an empty list.
  if (doomed.length === block.items.length) lines[keyIndex] = lines[keyIndex]!.replace(/^plugins\s*:/, 'plugins: []')
  return lines.join('\n')
}

/** The items of the block sequence under line `keyIndex`: each item's line range, their indent, and where the block ends. */
function blockItems(lines: string[], keyIndex: number): { items: { start: number; end: number }[]; indent: string; end: number } | undefined {
  const items: { start: number; end: number }[] = []
  let indent: string | undefined
  let end = keyIndex + 1
  for (let i = keyIndex + 1; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === '' || /^\s*#/.test(line)) continue
    const item = /^(\s*)- /.exec(line) ?? /^(\s*)-$/.exec(line)
    const lineIndent = /^\s*/.exec(line)![0]
    if (item && (indent === undefined || item[1] === indent)) {
      indent ??= item[1]!
      if (items.length > 0) items.at(-1)!.end = i
      items.push({ start: i, end: i + 1 })
      end = i + 1
    } else if (indent !== undefined && lineIndent.length > indent.length) {
      items.at(-1)!.end = i + 1 // a continuation of the item
      end = i + 1
    } else break
  }
  // Trailing blank or comment lines inside an item's range belong after it.
  for (const item of items) while (item.end > item.start + 1 && (lines[item.end - 1]!.trim() === '' || /^\s*#/.test(lines[item.end - 1]!))) item.end--
  if (items.length > 0) end = items.at(-1)!.end
  return { items, indent: indent ?? '  ', end }
}

/** The entry name an item line starts with: `- retry`, `- "retry"`, `- [retry, {…}]`, `- ["retry", …]`, `- - retry`. */
function itemName(line: string): string | undefined {
  const match = /^\s*-\s+(?:\[\s*|-\s+)?(["']?)([^"'\s,\]#]+)\1/.exec(line)
  return match?.[2]
}
