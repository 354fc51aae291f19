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

/**
 * Heap bytes kept per value, for `count` values made by `make` (all kept until measured).
 * The first values made also pay what is made once, not per value — compiled and optimised code
 * and its feedback, a cache filled on first use — which came to 0.2–0.5 KB per value over 500
 * values, varying from run to run with when the optimising compiler finished. So the first half
 * is made before the first reading and only the second half is counted: give a count in the
 * tens of thousands (10,000 warm values read the same to within a byte, quiet or loaded; a count
 * of 1 counts that one value).
 *
 * The least of `rounds` measurements, each of fresh values (the last round's are let go first):
 * what else the thread allocates between the two readings and keeps (the test runner's messages,
 * a compilation finishing) only ever adds to a reading, so the least is the closest to the
 * values' own size. Use one round when `make` leaves something behind outside the value (an
 * inbox subscribes to its session): a later round would count the earlier rounds' leftovers.
 */
export function bytesPerValue(count: number, make: (i: number) => unknown, rounds = 3): number {
  let least = Infinity
  for (let round = 0; round < rounds; round++) least = Math.min(least, measureOnce(count, make))
  return least
}

function measureOnce(count: number, make: (i: number) => unknown): number {
  const kept = new Array<unknown>(count)
  const warm = Math.floor(count / 2)
  for (let i = 0; i < warm; i++) kept[i] = make(i)
  const before = heapAfterGc()
  for (let i = warm; i < count; i++) kept[i] = make(i)
  const after = heapAfterGc()
  if (kept.length !== count) throw new Error('lost values')
  return (after - before) / (count - warm)
}
