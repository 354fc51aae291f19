import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { IMAGE_MEDIA_TYPES, imageDataProblem } from '../src/image-check.js'

// The first bytes each type starts with (its file signature), and a few bytes after them.
const heads = {
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  'image/jpeg': [0xff, 0xd8, 0xff, 0xe0],
  'image/gif': [...Buffer.from('GIF87a')],
  'image/webp': [...Buffer.from('RIFF'), 1, 2, 3, 4, ...Buffer.from('WEBPVP8 ')],
} as const

/**
 * An image a provider refuses stays in a session's history and fails every later turn: the host
 * refuses at admission an image whose bytes are not whole base64 or not of the type it claims
 * (R7: the alphabet alone let "hello" in as a PNG).
 */
describe('imageDataProblem', () => {
  it('takes an image of each type, padded or not, whatever follows its signature', () => {
    fc.assert(
      fc.property(fc.constantFrom(...IMAGE_MEDIA_TYPES), fc.uint8Array({ maxLength: 64 }), fc.boolean(), (type, rest, padded) => {
        const base64 = Buffer.concat([Buffer.from(heads[type]), rest]).toString('base64')
        expect(imageDataProblem(type, padded ? base64 : base64.replace(/=+$/, ''))).toBeUndefined()
      }),
    )
  })

  it('names the type the bytes are when it is another of the four', () => {
    for (const claimed of IMAGE_MEDIA_TYPES) {
      for (const actual of IMAGE_MEDIA_TYPES) {
        if (claimed === actual) continue
        const data = Buffer.from([...heads[actual], 0, 0, 0, 0]).toString('base64')
        expect(imageDataProblem(claimed, data)).toContain(`set mediaType to "${actual}"`)
      }
    }
  })

  it('refuses base64 one character past a group, or padded off a group of 4', () => {
    const png = Buffer.from([...heads['image/png'], 0, 0]).toString('base64')
    expect(imageDataProblem('image/png', `${png.replace(/=+$/, '')}AAAAA`.slice(0, 13))).toMatch(/not whole base64: 13 characters/)
    expect(imageDataProblem('image/png', 'iVBORw0KGgoAAA=')).toMatch(/padded base64 is a multiple of 4/)
  })

  it('refuses bytes of none of the four types', () => {
    expect(imageDataProblem('image/jpeg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'))).toMatch(/is not a JPEG image/)
    expect(imageDataProblem('image/webp', Buffer.from('RIFF\0\0\0\0WAVEfmt ').toString('base64'))).toMatch(/is not a WebP image/)
  })
})
