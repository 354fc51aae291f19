// The real file system, keeping the handles the store opened through it and has not closed: how
// a test tells that a store (or a test) left a descriptor for the garbage collector to close.
import { nodeFileSystem, type StoreFileHandle, type StoreFileSystem } from '../file-system.js'

export interface HandleTrackingFs extends StoreFileSystem {
  /** The paths of the handles opened and not closed yet, one entry per handle. */
  openPaths(): string[]
}

export function handleTrackingFs(base: StoreFileSystem = nodeFileSystem): HandleTrackingFs {
  const open = new Map<StoreFileHandle, string>()
  const track = (handle: StoreFileHandle, path: string): StoreFileHandle => {
    const tracked: StoreFileHandle = {
      ...handle,
      close: async () => {
        // Forgotten once asked: a close that fails is the store's to report, not a leak of it.
        open.delete(tracked)
        return handle.close()
      },
    }
    open.set(tracked, path)
    return tracked
  }
  return {
    ...base,
    open: async (path, flags, mode) => track(await base.open(path, flags, mode), path),
    openDirectory: async (path) => track(await (base.openDirectory ? base.openDirectory(path) : base.open(path, 'r')), path),
    openPaths: () => [...open.values()],
  }
}
