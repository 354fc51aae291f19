// Test-only error helper (excluded from the build): the BosunError a synchronous call throws.
import { BosunError } from '../errors.js'

/** Runs `fn` and returns the BosunError it throws; fails the test if it throws nothing or something else. */
export function thrown(fn: () => unknown): BosunError {
  try {
    fn()
  } catch (error) {
    if (BosunError.is(error)) return error
    throw error
  }
  throw new Error('expected the call to throw a BosunError')
}
