import { gunzipSync } from 'node:zlib'

const BLOCK = 512
/** A file read out of a package is for display and validation: a schema larger than this is refused. */
const MAX_FILE = 1024 * 1024

/**
 * One file of an npm package tarball (gzipped tar, every path under `package/`), or `undefined`
 * when it has none. `path` is relative to the package root (`./schema.json`, `schema.json`).
 * Reads ustar headers, PAX `path` records and GNU long names; nothing is written to disk.
 */
export function readTarballFile(gzipped: Buffer, path: string): string | undefined {
  const wanted = normalize(path)
  if (wanted === undefined) return undefined
  const tar = gunzipSync(gzipped, { maxOutputLength: 256 * 1024 * 1024 })
  let paxPath: string | undefined
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const header = tar.subarray(offset, offset + BLOCK)
    if (header.every((byte) => byte === 0)) break
    const size = parseInt(field(header, 124, 12).trim() || '0', 8)
    const type = String.fromCharCode(header[156]!)
    const body = tar.subarray(offset + BLOCK, offset + BLOCK + size)
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK
    if (type === 'x') {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1]
      continue
    }
    if (type === 'L') {
      // GNU tar's long name: the next entry's path, NUL-terminated.
      paxPath = body.toString('utf8').replace(/\0.*$/s, '')
      continue
    }
    const prefix = field(header, 345, 155)
    const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100))
    paxPath = undefined
    if (type !== '0' && type !== '\0') continue
    // npm packs under `package/`; some tools use another first folder: the first segment is dropped.
    if (normalize(name.split('/').slice(1).join('/')) !== wanted) continue
    if (size > MAX_FILE) return undefined
    return body.toString('utf8')
  }
  return undefined
}

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length)
  const end = raw.indexOf(0)
  return raw.subarray(0, end === -1 ? length : end).toString('utf8')
}

/** `./a/b.json` → `a/b.json`; a path that leaves the package → `undefined`. */
function normalize(path: string): string | undefined {
  const parts: string[] = []
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') return undefined
    parts.push(part)
  }
  return parts.join('/')
}
