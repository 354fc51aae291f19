import { optionsError, type OptionsProblem } from '@bosun/core'
import { foldString, foldText } from './fold.js'
import type { Options, Rule, RuleAction, RulePredicate } from './options.js'

/** A match in original-text coordinates: `[start, end)`. */
export interface Match {
  start: number
  end: number
}

interface RuleBase {
  id: string
  action: RuleAction
  replacement: string
  input: boolean
  output: boolean
}

/** A rule that matches spans of text: `pattern` or `keywords`. */
export interface SpanRule extends RuleBase {
  kind: 'span'
  /** The first non-empty match starting at or after `from`. */
  first(text: string, from: number): Match | undefined
  /** The longest match it can make, when known (keywords); `undefined` for a pattern. */
  longest: number | undefined
  /**
   * Whether what it matched may be quoted where the answer never shows it (an output reject's
   * excerpt): keywords, whose words are in the config — not a pattern, whose match (a card number,
   * a key) is what the rule exists to keep out of the log.
   */
  quotable: boolean
}

export interface LengthRule extends RuleBase {
  kind: 'length'
  maxLength: number
}

export interface TestRule extends RuleBase {
  kind: 'test'
  test: RulePredicate
}

export type CompiledRule = SpanRule | LengthRule | TestRule

/**
 * Compiles the rules, checking what the JSON Schema cannot: every `pattern` compiles with its
 * `flags`, ids are unique, `test` is a function and only judges input. Every problem is
 * collected; they are thrown together as one `PLUGIN_OPTIONS_INVALID` error naming each JSON path
 * (`$.rules[2].pattern`), so a bad config still fails when the agent is built, before any turn.
 */
export function compileRules({ rules }: Options, plugin: string): CompiledRule[] {
  const problems: OptionsProblem[] = []
  const seen = new Map<string, number>()
  const compiled: CompiledRule[] = []
  rules.forEach((rule, index) => {
    const fail = (message: string, ...keys: (string | number)[]) => problems.push({ keys: ['rules', index, ...keys], message })
    const earlier = seen.get(rule.id)
    if (earlier !== undefined) fail(`must be unique: the rule at rules[${earlier}] has the id ${JSON.stringify(rule.id)} too`, 'id')
    seen.set(rule.id, index)
    const scope = rule.scope ?? 'input'
    const base = { id: rule.id, action: rule.action, input: scope !== 'output', output: scope !== 'input' }
    const replacement = rule.replacement ?? (rule.maxLength !== undefined ? '[truncated]' : '[redacted]')
    if (rule.pattern !== undefined) {
      const regex = compilePattern(rule, fail)
      if (regex) compiled.push({ ...base, kind: 'span', replacement, longest: undefined, quotable: false, first: (text, from) => firstMatch(regex, text, from) })
    } else if (rule.keywords !== undefined) {
      const keywords = compileKeywords(rule, fail)
      if (keywords) compiled.push({ ...base, kind: 'span', replacement, quotable: true, ...keywords })
    } else if (rule.maxLength !== undefined) {
      compiled.push({ ...base, kind: 'length', replacement, maxLength: rule.maxLength })
    } else if (typeof rule.test === 'function') {
      if (base.output) problems.push({ keys: ['rules', index, 'scope'], message: 'must be "input" for a test predicate: it judges input messages only', found: scope })
      else compiled.push({ ...base, kind: 'test', replacement, test: rule.test })
    } else {
      problems.push({ keys: ['rules', index, 'test'], message: 'must be a function (text, message) => boolean | string, given in code', found: rule.test })
    }
  })
  if (problems.length > 0) throw optionsError(`plugin ${JSON.stringify(plugin)}`, problems)
  return compiled
}

/** Records a problem of the rule at the keys under it (`'pattern'`, `'keywords', 0`). */
type Fail = (message: string, ...keys: (string | number)[]) => void

function compilePattern(rule: Rule, fail: Fail): RegExp | undefined {
  const flags = [...new Set((rule.flags ?? '').replace(/[gy]/g, ''))].join('') + 'g'
  try {
    new RegExp('', flags)
  } catch (error) {
    fail(`must be valid RegExp flags: ${(error as Error).message}`, 'flags')
    return undefined
  }
  try {
    return new RegExp(rule.pattern!, flags)
  } catch (error) {
    fail(`must be a valid regular expression: ${(error as Error).message}`, 'pattern')
    return undefined
  }
}

/** The first non-empty match of a global regex at or after `from` (empty matches are skipped). */
function firstMatch(regex: RegExp, text: string, from: number): Match | undefined {
  regex.lastIndex = from
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    if (m[0].length > 0) return { start: m.index, end: m.index + m[0].length }
    regex.lastIndex = m.index + 1
  }
  return undefined
}

/** Scripts written without spaces between words: a keyword edge in one of them matches anywhere. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u

function compileKeywords(rule: Rule, fail: Fail): Pick<SpanRule, 'first' | 'longest'> | undefined {
  const words = rule.keywords!.map(foldString)
  const empty = words.findIndex((word) => word.trim() === '')
  if (empty >= 0) {
    fail('must keep a letter once case and accents are folded', 'keywords', empty)
    return undefined
  }
  const whole = rule.wholeWords ?? true
  const alternatives = [...new Set(words)]
    .sort((a, b) => b.length - a.length)
    .map((word) => {
      const escaped = word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
      if (!whole) return escaped
      const chars = [...word]
      const before = UNSPACED.test(chars[0]!) ? '' : '(?<![\\p{L}\\p{N}])'
      const after = UNSPACED.test(chars.at(-1)!) ? '' : '(?![\\p{L}\\p{N}])'
      return `${before}${escaped}${after}`
    })
  const regex = new RegExp(alternatives.join('|'), 'gu')
  let last = { text: '', folded: foldText('') }
  return {
    longest: Math.max(...rule.keywords!.map((word) => word.length)),
    first(text, from) {
      // A scan asks for one match after another in the same text: fold it once.
      if (text !== last.text) last = { text, folded: foldText(text) }
      const { folded } = last
      let at = 0
      while (at < folded.starts.length && folded.starts[at]! < from) at++
      const match = firstMatch(regex, folded.text, at)
      return match && { start: folded.starts[match.start]!, end: folded.ends[match.end - 1]! }
    },
  }
}
