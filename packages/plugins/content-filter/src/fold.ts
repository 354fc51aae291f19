/**
 * Text folded for case- and accent-insensitive matching, with the way back to the original:
 * folded code unit `i` came from the original range `[starts[i], ends[i])`.
 */
export interface FoldedText {
  text: string
  starts: number[]
  ends: number[]
}

const MARKS = /\p{M}/gu
const cache = new Map<string, string>()

/**
 * Folds one character: canonical decomposition (NFD), combining marks stripped, lower-cased
 * (and stripped again, for the marks some capitals decompose to when lower-cased).
 *
 * @example
 * foldChar('É') // 'e'
 * foldChar('\u0301') // '' (a combining acute accent on its own)
 */
export function foldChar(char: string): string {
  let folded = cache.get(char)
  if (folded === undefined) {
    folded = char.normalize('NFD').replace(MARKS, '').toLowerCase().normalize('NFD').replace(MARKS, '')
    if (cache.size < 10_000) cache.set(char, folded)
  }
  return folded
}

/** Folds a whole string (for keywords). */
export function foldString(text: string): string {
  return foldText(text).text
}

/**
 * Folds `text` character by character, keeping for each folded code unit the original range it
 * came from. A combining mark that folds to nothing joins the range of the character before it,
 * so that redacting `cafe\u0301` (decomposed "café") removes the accent with the word.
 *
 * @example
 * const folded = foldText('CAFÉ!') // text: 'cafe!'
 * folded.starts[3], folded.ends[3] // 3, 4 — the 'e' came from 'É'
 */
export function foldText(text: string): FoldedText {
  let folded = ''
  const starts: number[] = []
  const ends: number[] = []
  for (let i = 0; i < text.length; ) {
    const char = String.fromCodePoint(text.codePointAt(i)!)
    const end = i + char.length
    const f = foldChar(char)
    if (f === '' && ends.length > 0) ends[ends.length - 1] = end
    for (let k = 0; k < f.length; k++) {
      starts.push(i)
      ends.push(end)
    }
    folded += f
    i = end
  }
  return { text: folded, starts, ends }
}
