// The real file system, counting what the store reads of its session logs and the sidecars it
// renames into place and the syncs of the logs: how a test tells a bounded read from a whole one.
import { nodeFileSystem, type StoreFileSystem } from '../file-system.js'

export interface CountingFs extends StoreFileSystem {
  /** Bytes read from `*.jsonl` files (pread and whole-file reads). */
  logBytes: number
  /** Whole-file reads (`readFile`) of `*.jsonl` files. */
  wholeReads: number
  /** Renames (a sidecar put in place). */
  renames: number
  /** fdatasyncs and fsyncs of `*.jsonl` files. */
  syncs: number
}

export function countingFs(): CountingFs {
  const rename = nodeFileSystem.rename!
  const fs: CountingFs = {
    ...nodeFileSystem,
    logBytes: 0,
    wholeReads: 0,
    renames: 0,
    syncs: 0,
    async rename(from: string, to: string) {
      fs.renames++
      return rename(from, to)
    },
    async open(path: string, flags: string, mode?: number) {
      const handle = await nodeFileSystem.open(path, flags, mode)
      if (!path.endsWith('.jsonl')) return handle
      return {
        ...handle,
        read: async (buffer: Uint8Array, offset: number, length: number, position: number) => {
          const result = await handle.read(buffer, offset, length, position)
          fs.logBytes += result.bytesRead
          return result
        },
        datasync: async () => {
          fs.syncs++
          return handle.datasync()
        },
        sync: async () => {
          fs.syncs++
          return handle.sync()
        },
        readFile: async () => {
          const bytes = await handle.readFile()
          fs.logBytes += bytes.length
          fs.wholeReads++
          return bytes
        },
      }
    },
  }
  return fs
}
