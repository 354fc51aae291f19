import type { Agent } from '@bosun/core'

/**
 * What opening the session repaired, for `run` and `chat` to say before anything runs: a turn a
 * crash (kill -9, power loss) left open is closed as interrupted, and the messages it had claimed
 * are queued again — so they run first, and their answers come before yours.
 */
export function recoveryNote(agent: Agent): string | undefined {
  const { turn, requeued } = agent.recovery
  if (turn === undefined) return undefined
  const count = requeued.length
  return `The last run stopped mid-turn; turn ${turn} was closed as interrupted${count > 0 ? ` (${count} message${count === 1 ? '' : 's'} re-queued)` : ''}.`
}
