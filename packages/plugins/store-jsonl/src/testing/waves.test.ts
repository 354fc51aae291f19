// The crash properties' wave generator says "at most one flush per session" per round: checked
// here: the properties that use it would not notice a session drawn twice.
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { SESSIONS, wave } from './waves.js'

it('a wave names each session at most once, one to SESSIONS flushes', () => {
  fc.assert(
    fc.property(wave, (steps) => {
      const sessions = steps.map((step) => step.session)
      expect(new Set(sessions).size).toBe(sessions.length)
      expect(steps.length).toBeGreaterThanOrEqual(1)
      expect(steps.length).toBeLessThanOrEqual(SESSIONS)
    }),
    { numRuns: 500 },
  )
})
