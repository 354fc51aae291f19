import { describe, expect, it } from 'vitest'
import { foldChar, foldText } from './fold.js'

describe('fold', () => {
  it('lower-cases and strips accents', () => {
    expect(foldText('CAFÉ Crème Ångström').text).toBe('cafe creme angstrom')
    expect(foldChar('İ')).toBe('i')
  })

  it('maps each folded character back to the original range', () => {
    const folded = foldText('xÉy')
    expect(folded.text).toBe('xey')
    expect([folded.starts, folded.ends]).toEqual([[0, 1, 2], [1, 2, 3]])
  })

  it('a combining mark joins the range of the character before it', () => {
    const folded = foldText('cafe\u0301!') // decomposed "café!"
    expect(folded.text).toBe('cafe!')
    expect(folded.ends[3]).toBe(5)
    expect(folded.starts[4]).toBe(5)
  })

  it('keeps surrogate pairs whole', () => {
    const folded = foldText('a😀b')
    expect(folded.text).toBe('a😀b')
    expect(folded.starts).toEqual([0, 1, 1, 3])
    expect(folded.ends).toEqual([1, 3, 3, 4])
  })
})
