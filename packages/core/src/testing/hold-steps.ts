// Test-only (excluded from the build): a turn that stays open until it is aborted.
import { definePlugin } from '../plugin.js'
import { gate } from './harness.js'

/** A pre-step that holds every step forever: the claim is in the log, nothing was stepped (an abort ends the turn). */
export function preStepThatNeverReturns() {
  const never = gate()
  return definePlugin({
    name: 'hold',
    setup({ hooks }) {
      hooks.preStep.tapPromise('hold', async (decision) => {
        await never.promise
        return decision
      })
    },
  })
}
