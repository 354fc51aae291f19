import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createStyle, displayWidth } from './output.js'
import { terminalRows, wrapHanging, wrapRows } from './wrap.js'

const style = createStyle(true)
const visible = (rows: string[]) => rows.map((row) => stripVTControlCharacters(row))

describe('wrapRows: word-wrapping the chat’s unfinished line', () => {
  it('counts visible columns: coloured words wrap where the same plain words do', () => {
    const words = Array.from({ length: 30 }, (_, index) => `w${index + 1}x`)
    const plain = wrapRows(words.join(' '), 20)
    const coloured = wrapRows(words.map((word, index) => (index % 2 === 0 ? style.bold(word) : style.cyan(word))).join(' '), 20)
    expect(visible(coloured)).toEqual(plain)
    expect(Math.max(...coloured.map(displayWidth))).toBeLessThanOrEqual(20)
  })

  it('never cuts an escape sequence in two, and a style open at a cut is closed there and opened again on the next row', () => {
    const rows = wrapRows(style.bold('x'.repeat(25)), 10)
    expect(visible(rows)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)])
    expect(rows[0]).toBe(`\u001b[1m${'x'.repeat(10)}\u001b[0m`)
    expect(rows[1]).toBe(`\u001b[1m${'x'.repeat(10)}\u001b[0m`)
    expect(rows[2]).toBe(`\u001b[1m${'x'.repeat(5)}\u001b[22m`)
  })

  it('a style closed before the cut is not opened again', () => {
    expect(wrapRows(`${style.bold('one')} two three`, 9)).toEqual(['\u001b[1mone\u001b[22m two', 'three'])
  })

  it('wide characters take two columns; a row holds at least one character', () => {
    expect(wrapRows('漢字漢字漢字', 5)).toEqual(['漢字', '漢字', '漢字'])
    expect(wrapRows('漢x', 1)).toEqual(['漢', 'x'])
  })
})

describe('wrapHanging: a line of an indented listing (bosun log)', () => {
  it('indents the rows after the first two past the line\'s own indent, styles kept per row', () => {
    expect(wrapHanging('    user      one two three four five', 20)).toEqual(['    user      one', '      two three four', '      five'])
    expect(visible(wrapHanging(`  ${style.red('✗ error TRANSPORT: the connection failed')}`, 20))).toEqual(['  ✗ error TRANSPORT:', '    the connection', '    failed'])
    expect(wrapHanging('short', 20)).toEqual(['short'])
  })

  it('indents half the width at most, so a deep line still has room', () => {
    expect(wrapHanging(`${' '.repeat(12)}aaa bbb ccc`, 16)).toEqual([`${' '.repeat(12)}aaa`, `${' '.repeat(8)}bbb ccc`])
  })
})

describe('terminalRows: lines for a terminal, or whole for a pipe', () => {
  it('wraps each line and each part of a line with a newline short of the last column; no columns keeps them', () => {
    expect(terminalRows(['error X: one two three', 'b\nc'], 13)).toEqual(['error X: one', '  two three', 'b', 'c'])
    expect(terminalRows(['error X: one two three', 'b\nc'], undefined)).toEqual(['error X: one two three', 'b\nc'])
  })

  it('wraps a megabyte-long error line whole (review R3: every row measured and copied the rest, minutes for 1 MB)', () => {
    const words = Array.from({ length: 200_000 }, (_, i) => `w${i % 10_000}`)
    const line = `${style.red(style.bold('error'))} ${style.bold('X')}: ${words.join(' ')}`
    const rows = terminalRows([line], 80)
    expect(rows.length).toBeGreaterThan(15_000)
    expect(rows.every((row) => displayWidth(row) <= 79)).toBe(true)
    expect(visible(rows).map((row) => row.trim()).join(' ')).toBe(`error X: ${words.join(' ')}`)
  })

  it('keeps a style open across rows, and a trailing character wider than a row makes no empty row', () => {
    const rows = wrapRows(style.cyan('aaa bbb ccc ddd'), 7)
    expect(visible(rows)).toEqual(['aaa bbb', 'ccc ddd'])
    expect(rows.every((row) => row.startsWith('\u001b[36m'))).toBe(true)
    expect(wrapRows('ab漢', 2)).toEqual(['ab', '漢'])
  })
})
