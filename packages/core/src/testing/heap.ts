import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// For tests of what an object keeps alive (goal 2 of issue 20: heap per idle session). Which
// copy of a string, or whether an empty collection exists, is invisible to the code; a full
// collection before each reading makes heapUsed deterministic enough to tell (no timing involved).
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** `process.memoryUsage().heapUsed` after two full collections. */
export function heapAfterGc(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** Heap bytes kept per value, for `count` values made by `make` (all kept until measured). */
export function bytesPerValue(count: number, make: (i: number) => unknown): number {
  const before = heapAfterGc()
  const kept = new Array<unknown>(count)
  for (let i = 0; i < count; i++) kept[i] = make(i)
  const after = heapAfterGc()
  if (kept.length !== count) throw new Error('lost values')
  return (after - before) / count
}
