/** Parsers of option values, run as commander parses them: a wrong value is a usage error naming the option. */
import { InvalidArgumentError } from 'commander'
import { pairProblem } from './option-pair.js'

/** Each `-o key=value` adds its key; a malformed one, or a key given twice, is a usage error said before the registry is asked. */
export function optionPairs(value: string, previous: string[] = []): string[] {
  const problem = pairProblem(value, previous)
  if (problem !== undefined) throw new InvalidArgumentError(problem)
  return [...previous, value]
}

/** `--limit`: 0 would list nothing, so the one rule is 1 or more, said for a word and for 0 alike. */
export function limitCount(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) {
    throw new InvalidArgumentError('must be a whole number, 1 or more (--all lists every package found).')
  }
  return Number(value)
}

/** `--at-turn`: a turn count, 0 or more. */
export function nonNegativeInteger(value: string): number {
  const number = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('must be a whole number (0 or more).')
  return number
}
