// Test-only (excluded from the build): sessions and agents for the idle sweep's tests (sealer*.test.ts).
import { definePlugin } from '../plugin.js'
import type { SessionEvent } from '../session/events.js'
import { Session } from '../session/session.js'
import { gate } from './harness.js'

/** A pre-step that never settles while `state.held` is set: a turn that stays open (an abort ends it). */
export function holdWhen(state: { held: boolean }) {
  const never = gate()
  return definePlugin({
    name: 'hold-when',
    setup({ hooks }) {
      hooks.preStep.tapPromise('hold-when', async (decision) => {
        if (state.held) await never.promise
        return decision
      })
    },
  })
}

/** A session loaded with two ended turns: a sweep candidate as soon as log pages are enabled. */
export function loadedSession(id: string): Session {
  const types = ['turn/start', 'turn/end', 'turn/start', 'turn/end']
  const events = types.map((type, seq) => Object.freeze({ seq, time: seq, type, data: Object.freeze({ turn: 1 + (seq >> 1) }) }) as SessionEvent)
  return new Session({ id, version: 1, createdAt: 0 }, events)
}
