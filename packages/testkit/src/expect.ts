import type { JsonValue } from '@bosun/core'
import { matches } from './match.js'
import type { TurnReport } from './turn-report.js'

/**
 * A failed expectation: a plain `Error` (so vitest, jest and `node:test` all report it) whose
 * message shows what was expected, what happened and the turn's timeline. `actual` and
 * `expected` are set as `node:assert` sets them, so runners that diff them do.
 */
export class AssertionError extends Error {
  readonly code = 'ERR_ASSERTION'
  readonly actual: unknown
  readonly expected: unknown

  constructor(message: string, expected: unknown, actual: unknown) {
    super(message)
    this.name = 'AssertionError'
    this.expected = expected
    this.actual = actual
  }
}

/** What `expectRejected` checks besides the rejection itself. */
export interface ExpectedRejection {
  /** The tap (plugin) name that rejected. */
  by?: string
  /**
   * The rejection's metadata, matched like `toMatchObject`: every key given must match
   * (recursively); keys not given are ignored; arrays match element by element and in length.
   */
  metadata?: JsonValue
}

/**
 * Throws an {@link AssertionError} unless the turn was rejected by a pre-step plugin (with `by`
 * and `metadata`, when given).
 *
 * @example
 * const turn = await kit.send('the password is hunter2')
 * expectRejected(turn, { by: 'secrets', metadata: { rule: 'password' } })
 */
export function expectRejected(turn: TurnReport, expected: ExpectedRejection = {}): void {
  const { rejected } = turn
  if (rejected === undefined) {
    fail(`expectRejected: expected the turn to be rejected, but it ${outcome(turn)}.`, turn, { kind: 'blocked', ...expected }, turn.end)
  }
  if (expected.by !== undefined && rejected.by !== expected.by) {
    fail(`expectRejected: expected a rejection by "${expected.by}", but "${rejected.by}" rejected it.`, turn, expected.by, rejected.by)
  }
  if (expected.metadata !== undefined && !matches(rejected.metadata, expected.metadata)) {
    fail(`expectRejected: the turn was rejected by "${rejected.by}", with other metadata.`, turn, expected.metadata, rejected.metadata)
  }
}

/**
 * Throws an {@link AssertionError} unless the turn's entered messages (the `user/message`
 * events: what the model saw as new input) have exactly these texts, in this order.
 *
 * @example
 * const turn = await kit.send('call me at 555-0100')
 * expectEntered(turn, ['call me at [phone]'])
 */
export function expectEntered(turn: TurnReport, texts: readonly string[]): void {
  if (matches(turn.entered, texts)) return
  const headline = turn.rejected === undefined ? 'other messages entered' : `nothing entered: the turn ${outcome(turn)}`
  fail(`expectEntered: ${headline}.`, turn, texts, turn.entered)
}

/** How a turn ended, as a clause: "was rejected by …", "ended completed", "ran no turn". */
function outcome(turn: TurnReport): string {
  if (turn.rejected) return `was rejected by "${turn.rejected.by}" with ${JSON.stringify(turn.rejected.metadata)}`
  if (turn.end === undefined) return 'ran no turn'
  if (turn.end.kind === 'error') return `ended with an error: ${turn.end.error.code}: ${turn.end.error.message}`
  return `ended ${turn.end.kind}${turn.entered.length > 0 ? ` after entering ${JSON.stringify(turn.entered)}` : ''}`
}

function fail(headline: string, turn: TurnReport, expected: unknown, actual: unknown): never {
  const lines = [
    headline,
    `  - expected: ${JSON.stringify(expected)}`,
    `  + actual:   ${JSON.stringify(actual)}`,
    'timeline:',
    ...(turn.timeline === '' ? ['  (no events)'] : turn.timeline.split('\n').map((line) => `  ${line}`)),
  ]
  throw new AssertionError(lines.join('\n'), expected, actual)
}
