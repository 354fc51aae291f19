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
 * so each row draws the same alone (the live area redraws its unfinished row on its own).
 */
export function wrapRows(text: string, max: number): string[] {
  const rows: string[] = []
  let rest = text
  while (displayWidth(rest) > max) {
    const [head, tail] = wrapAt(rest, max)
    rows.push(head)
    rest = tail
  }
  rows.push(rest)
  return rows
}

/**
 * `text` word-wrapped as {@link wrapRows} does, its rows after the first indented two columns past
 * its own indent (half the width at most), so that a wrapped line of an indented listing (`bosun
 * log`) still reads as one item.
 */
export function wrapHanging(text: string, max: number): string[] {
  if (displayWidth(text) <= max) return [text]
  const lead = /^ */.exec(stripVTControlCharacters(text))![0].length
  const indent = ' '.repeat(Math.min(lead + 2, Math.floor(max / 2)))
  const [head, tail] = wrapAt(text, max)
  return [head, ...wrapRows(tail, max - indent.length).map((row) => indent + row)]
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

/** Splits `text` before `max` visible columns, at the last space if there is one. */
function wrapAt(text: string, max: number): [string, string] {
  let width = 0
  let index = 0
  let lastSpace = -1
  /** The SGR sequences in force at `index`, and at `lastSpace`: what the tail must open again. */
  let styles: string[] = []
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
    if (width + w > max && width > 0) break
    width += w
    index += char.length
  }
  if (lastSpace > 0) return split(text, lastSpace, lastSpace + 1, stylesAtSpace)
  return split(text, index, index, styles)
}

function split(text: string, headEnd: number, tailStart: number, styles: string[]): [string, string] {
  if (styles.length === 0) return [text.slice(0, headEnd), text.slice(tailStart)]
  return [`${text.slice(0, headEnd)}\u001b[0m`, `${styles.join('')}${text.slice(tailStart)}`]
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
