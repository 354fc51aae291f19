import zlib from 'node:zlib'
import { syncBuiltinESMExports } from 'node:module'

const realInflate = zlib.inflateRawSync
let decodes = 0

/**
 * Counts the sealed log pages decoded from now on (each decode of a page is one `inflateRawSync`):
 * what reading a sealed log costs, seen from outside the host's code. The core imports the
 * function by name, so the builtin's ESM export is synced with the spy. A file that counts puts
 * the real function back after each test: `afterEach(restorePageDecodes)` (registered by the file,
 * not here: a module imported once in a shared graph would register it for one file only).
 */
export function countPageDecodes(): { readonly count: number } {
  decodes = 0
  zlib.inflateRawSync = ((...args: Parameters<typeof realInflate>) => {
    decodes++
    return realInflate(...args)
  }) as typeof realInflate
  syncBuiltinESMExports()
  return {
    get count() {
      return decodes
    },
  }
}

/** Puts the real `inflateRawSync` back. */
export function restorePageDecodes(): void {
  zlib.inflateRawSync = realInflate
  syncBuiltinESMExports()
}
