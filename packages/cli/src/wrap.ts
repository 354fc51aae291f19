import { stripVTControlCharacters } from 'node:util'
import { displayWidth } from './output.js'

/**
 * A terminal escape sequence at the start of a string: CSI (colours are `ESC [ … m`), OSC (ended
 * by BEL or ST) or a two-character ESC sequence. They take no columns and are never cut in two:
 * half a sequence would swallow the next characters and show the rest as text.
 */
const ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/y
const SGR = /^\u001b\[([0-9;]*)m$/

/**
 * `text` word-wrapped into rows of at most `max` visible columns (one row, itself, when it fits).
 * Columns are counted as the terminal shows them: escape sequences take none, wide characters two.
 * A style open where a row is cut is closed at its end and opened again at the next row's start,
 * so each row draws the same alone (the live area redraws its unfinished row on its own). Linear
 * in the text's length: each row's scan starts where the last one was cut (a plugin's error
 * message of a megabyte took minutes when every row measured and copied the whole rest).
 */
export function wrapRows(text: string, max: number): string[] {
  return rowsFrom(text, 0, max, [])
}

/**
 * `text` word-wrapped as {@link wrapRows} does, its rows after the first indented two columns past
 * its own indent (half the width at most), so that a wrapped line of an indented listing (`bosun
 * log`) still reads as one item.
 */
export function wrapHanging(text: string, max: number): string[] {
  const first = cutAt(text, 0, max, [])
  if (first === undefined) return [text]
  const lead = /^ */.exec(stripVTControlCharacters(text))![0].length
  const indent = ' '.repeat(Math.min(lead + 2, Math.floor(max / 2)))
  return [rowOf(text, 0, first, []), ...rowsFrom(text, first.tailStart, max - indent.length, first.styles).map((row) => indent + row)]
}

/** The rows of `text` from `start`, where the styles `open` are in force (opened again at the first row's start). */
function rowsFrom(text: string, start: number, max: number, open: string[]): string[] {
  const rows: string[] = []
  for (;;) {
    const cut = cutAt(text, start, max, open)
    if (cut === undefined) {
      rows.push(`${open.join('')}${text.slice(start)}`)
      return rows
    }
    rows.push(rowOf(text, start, cut, open))
    start = cut.tailStart
    open = cut.styles
  }
}

/** Where a row is cut: its text ends at `headEnd`, the next starts at `tailStart` with `styles` in force. */
interface Cut {
  headEnd: number
  tailStart: number
  styles: string[]
}

function rowOf(text: string, start: number, cut: Cut, open: string[]): string {
  return `${open.join('')}${text.slice(start, cut.headEnd)}${cut.styles.length === 0 ? '' : '\u001b[0m'}`
}

/**
 * `lines` as rows for a terminal `columns` wide: each line (and each part of one with a newline)
 * word-wrapped by {@link wrapHanging} short of the last column, where the terminal would cut it
 * mid-word and run the rest on at the left edge. `undefined` (not a terminal) keeps them whole.
 */
export function terminalRows(lines: readonly string[], columns: number | undefined): string[] {
  if (columns === undefined) return [...lines]
  return lines.flatMap((line) => line.split('\n').flatMap((part) => wrapHanging(part, columns - 1)))
}

/**
 * Where the row of `text` that starts at `start` (the styles `open` in force) is cut before `max`
 * visible columns — at its last space if it has one — or undefined when the rest fits. Reads at
 * most the row's own characters (and the escape sequences among them).
 */
function cutAt(text: string, start: number, max: number, open: string[]): Cut | undefined {
  let width = 0
  let index = start
  let lastSpace = -1
  /** The SGR sequences in force at `index`, and at `lastSpace`: what the next row must open again. */
  let styles = open
  let stylesAtSpace: string[] = []
  while (index < text.length) {
    ESCAPE.lastIndex = index
    const escape = ESCAPE.exec(text)?.[0]
    if (escape !== undefined) {
      styles = applySgr(styles, escape)
      index += escape.length
      continue
    }
    const char = String.fromCodePoint(text.codePointAt(index)!)
    const w = displayWidth(char)
    // A space is a place to break even where it would not fit itself: a word may end at `max`.
    if (char === ' ') {
      lastSpace = index
      stylesAtSpace = styles
    }
    // At least one visible character a row, even one wider than `max`, so wrapping always ends.
    if (width + w > max && width > 0) {
      if (lastSpace > start || (lastSpace === start && open.length > 0)) return { headEnd: lastSpace, tailStart: lastSpace + 1, styles: stylesAtSpace }
      return { headEnd: index, tailStart: index, styles }
    }
    width += w
    index += char.length
  }
  return undefined
}

/** The SGR code that turns off what `code` turns on (bold 1 → 22, a colour 31 → 39, …). */
function closerOf(code: number): number | undefined {
  if (code === 1 || code === 2) return 22
  if (code >= 3 && code <= 9 && code !== 6) return 20 + code
  if ((code >= 30 && code <= 38) || (code >= 90 && code <= 97)) return 39
  if ((code >= 40 && code <= 48) || (code >= 100 && code <= 107)) return 49
  return undefined
}

/** The styles in force after `escape`: a reset clears them, a closer drops what it closes. */
function applySgr(styles: string[], escape: string): string[] {
  const params = SGR.exec(escape)?.[1]
  if (params === undefined) return styles
  if (/^0*$/.test(params)) return []
  const code = Number(params)
  // One closing code (the CLI's styles end with one): drop the sequences it ends, keep the rest.
  if (/^\d+$/.test(params) && closerOf(code) === undefined) {
    const kept = styles.filter((open) => closerOf(Number(SGR.exec(open)![1])) !== code)
    if (kept.length !== styles.length) return kept
  }
  return [...styles, escape]
}
