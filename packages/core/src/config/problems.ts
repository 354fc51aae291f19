import { basename } from 'node:path'
import { BosunError, ErrorCodes } from '../errors.js'
import { looksLikeCredential, mentionsCredential, quoteFound } from './credentials.js'
import type { ConfigProblem } from './types.js'

/**
 * The one error a config yields: `Invalid config <file>:` and one line per problem, so that a user
 * fixes everything in one pass. `details.problems` keeps them structured. The first underlying
 * error is the cause — unless its message holds a credential.
 */
export function configError(file: string | undefined, dir: string, problems: readonly ConfigProblem[]): BosunError {
  const source = file ?? `(no config file; names resolve from ${dir})`
  // An entry "name" that is a pasted key is not repeated, in the message or in the details.
  const shown = problems.map((problem) =>
    problem.plugin !== undefined && looksLikeCredential(problem.plugin) ? { ...problem, plugin: '<credential>' } : problem)
  const lines = shown.map((problem) => `  - ${formatProblem(problem)}`)
  const cause = problems.find((problem) => problem.cause !== undefined)?.cause
  return new BosunError(ErrorCodes.CONFIG_INVALID, `Invalid config ${source}:\n${lines.join('\n')}`, {
    ...(cause === undefined || mentionsCredential(cause) ? {} : { cause }),
    details: {
      file,
      problems: shown.map(({ path, plugin, kind, message }) => ({ path, ...(plugin === undefined ? {} : { plugin, kind }), message })),
    },
  })
}

/** `$.plugins[1] (plugin "rate-limit"): message` */
export function formatProblem(problem: ConfigProblem): string {
  const entry = problem.plugin === undefined ? '' : ` (${problem.kind ?? 'plugin'} ${JSON.stringify(problem.plugin)})`
  return `${problem.path}${entry}: ${problem.message}`
}

/** The JSON path of the config itself: `$`, or `$.bosun` inside package.json. */
export function rootPath(file: string | undefined): string {
  return file !== undefined && basename(file) === 'package.json' ? '$.bosun' : '$'
}

/**
 * Appends a key or index to a JSON path: `.key`, `[0]`, or `["odd key"]`. A key that looks like a
 * credential (one pasted where a name belongs) is not spelt out: `[<credential>]`.
 */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`
  if (/^[A-Za-z_$][\w$]*$/.test(key) && !looksLikeCredential(key)) return `${path}.${key}`
  return looksLikeCredential(key) ? `${path}[<credential>]` : `${path}[${JSON.stringify(key)}]`
}

/**
 * The closest name within edit distance 2, or one that holds the other (`plugin` → `plugins`,
 * `perMinute` → `turnsPerMinute`). Of names that hold it, the one it covers most wins, before any
 * typo: `perMinute` holds `per` too, but is most of `turnsPerMinute`.
 */
export function suggest(name: string, known: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined
  const lower = name.toLowerCase()
  for (const candidate of known) {
    const other = candidate.toLowerCase()
    const holds = lower.length >= 3 && other.length >= 3 && (other.includes(lower) || lower.includes(other))
    const distance = holds ? 0.5 - 0.25 * (Math.min(lower.length, other.length) / Math.max(lower.length, other.length)) : levenshtein(lower, other)
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { candidate, distance }
  }
  return best?.candidate
}

/**
 * A short description of a value for "found …": never more than 40 characters of a string, and
 * nothing of one that looks like a credential (see {@link quoteFound}).
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (typeof value === 'string') return quoteFound(value)
  if (typeof value === 'function') return 'a function'
  // String() would show 5n as 5 and a symbol as its description: neither is what was given.
  if (typeof value === 'bigint') return `the bigint ${value}n`
  if (typeof value === 'symbol') return 'a symbol'
  if (Array.isArray(value)) {
    if (value.length === 0) return 'an empty array'
    if (value.length > 3) return `an array of ${value.length}`
    return `[${value.map((item) => (Array.isArray(item) ? '[…]' : item !== null && typeof item === 'object' ? '{…}' : describeValue(item))).join(', ')}]`
  }
  if (typeof value === 'object') return 'an object'
  return String(value)
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
