/**
 * What the host checks of an image before it admits it. An image a provider refuses stays in the
 * session's history and fails every later turn (the way out is a fork), so a block the providers
 * would refuse is refused at admission instead, saying what to send.
 */

/**
 * The image types a content block may have: those every provider adapter's API takes (Anthropic:
 * jpeg, png, gif, webp; OpenAI: png, jpeg, webp, gif).
 */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

/** An image's `data`: base64 (standard alphabet, padding optional), no line breaks. The body's schema checks it. */
export const BASE64_PATTERN = '^[A-Za-z0-9+/]+={0,2}$'

const NAMES: Record<ImageMediaType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/gif': 'GIF', 'image/webp': 'WebP' }

/** The type the first bytes of an image say it is (its file signature), if one of the four. */
function signatureOf(head: Buffer): ImageMediaType | undefined {
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png'
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg'
  const ascii = head.toString('latin1')
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif'
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp'
  return undefined
}

/**
 * What is wrong with an image's base64 `data` for its `mediaType` (one of {@link IMAGE_MEDIA_TYPES},
 * `data` matching {@link BASE64_PATTERN}), said so that the sender knows what to send; undefined when
 * nothing is. Reads the first 16 bytes, whatever the image's size.
 */
export function imageDataProblem(mediaType: ImageMediaType, data: string): string | undefined {
  // Base64 comes in groups of 4 characters; one left over is never whole, and padding ends a group.
  if (data.length % 4 === 1 || (data.endsWith('=') && data.length % 4 !== 0)) {
    return `is not whole base64: ${data.length} characters (${data.endsWith('=') ? 'padded base64 is a multiple of 4' : 'one character past a group of 4 holds no byte'}) — was it cut?`
  }
  const found = signatureOf(Buffer.from(data.slice(0, 24), 'base64'))
  if (found === mediaType) return undefined
  if (found !== undefined) return `holds a ${NAMES[found]} image, not the ${NAMES[mediaType]} its mediaType says: set mediaType to "${found}"`
  return `is not a ${NAMES[mediaType]} image (its bytes do not start with the ${NAMES[mediaType]} signature): send the image file's own bytes, base64-encoded`
}
