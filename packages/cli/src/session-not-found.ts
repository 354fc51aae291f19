import type { BosunError } from '@bosun/core'
import { editDistance } from './edit-distance.js'
import { CliErrorCodes, cliError } from './errors.js'

/**
 * SESSION_NOT_FOUND for `id`, naming where the CLI looked (`where`: `.bosun/sessions (JSONL)`) and,
 * when a stored id is near the one typed, that one: `(Did you mean 20261204-092735-wzgd?)`.
 */
export function sessionNotFound(id: string, where: string, storedIds: readonly string[]): BosunError {
  const near = nearSessionIds(id, storedIds)
  const guess = near.length === 0 ? '' : ` Did you mean ${near.join(' or ')}?`
  return cliError(CliErrorCodes.SESSION_NOT_FOUND, `No session "${id}" in ${where}.${guess} \`bosun sessions list\` shows the sessions there.`, { sessionId: id })
}

/**
 * The stored ids the user most likely meant by `typed` (at most three, the nearest): one it begins
 * (an id typed short, as a git hash is), else one a typo or two away — a generated id is 20
 * characters, so one in four may differ. None when nothing is that near: a guess far off helps no one.
 */
export function nearSessionIds(typed: string, storedIds: readonly string[]): string[] {
  if (typed.length < 3) return []
  const starting = storedIds.filter((id) => id.startsWith(typed))
  if (starting.length > 0) return starting.slice(0, 3)
  const allowed = Math.max(1, Math.floor(typed.length / 4))
  const scored = storedIds.map((id) => ({ id, distance: editDistance(typed, id) })).filter((each) => each.distance <= allowed)
  const best = Math.min(...scored.map((each) => each.distance))
  return scored.filter((each) => each.distance === best).map((each) => each.id).slice(0, 3)
}
