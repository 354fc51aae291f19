import { BosunError, ErrorCodes } from '@bosun/core'
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
  const problems: { path: string; message: string }[] = []
  const seen = new Map<string, number>()
  const compiled: CompiledRule[] = []
  rules.forEach((rule, index) => {
    const at = `$.rules[${index}]`
    const fail = (field: string, message: string) => problems.push({ path: `${at}.${field}`, message })
    const earlier = seen.get(rule.id)
    if (earlier !== undefined) fail('id', `repeats the id ${JSON.stringify(rule.id)} of $.rules[${earlier}]`)
    seen.set(rule.id, index)
    const scope = rule.scope ?? 'input'
    const base = { id: rule.id, action: rule.action, input: scope !== 'output', output: scope !== 'input' }
    const replacement = rule.replacement ?? (rule.maxLength !== undefined ? '[truncated]' : '[redacted]')
    if (rule.pattern !== undefined) {
      const regex = compilePattern(rule, fail)
      if (regex) compiled.push({ ...base, kind: 'span', replacement, longest: undefined, first: (text, from) => firstMatch(regex, text, from) })
    } else if (rule.keywords !== undefined) {
      const keywords = compileKeywords(rule, fail)
      if (keywords) compiled.push({ ...base, kind: 'span', replacement, ...keywords })
    } else if (rule.maxLength !== undefined) {
      compiled.push({ ...base, kind: 'length', replacement, maxLength: rule.maxLength })
    } else if (typeof rule.test === 'function') {
      if (base.output) fail('scope', `a test predicate judges input messages only; use scope "input" (found ${JSON.stringify(scope)})`)
      else compiled.push({ ...base, kind: 'test', replacement, test: rule.test })
    } else {
      fail('test', `must be a function (text, message) => boolean | string, given in code (found ${typeof rule.test})`)
    }
  })
  if (problems.length > 0) {
    throw new BosunError(
      ErrorCodes.PLUGIN_OPTIONS_INVALID,
      `Invalid options for plugin "${plugin}":\n${problems.map((p) => `  - ${p.path} ${p.message}`).join('\n')}`,
      { details: { plugin, paths: problems.map((p) => p.path).join(',') } },
    )
  }
  return compiled
}

function compilePattern(rule: Rule, fail: (field: string, message: string) => void): RegExp | undefined {
  const flags = [...new Set((rule.flags ?? '').replace(/[gy]/g, ''))].join('') + 'g'
  try {
    new RegExp('', flags)
  } catch (error) {
    fail('flags', `are not valid RegExp flags: ${(error as Error).message}`)
    return undefined
  }
  try {
    return new RegExp(rule.pattern!, flags)
  } catch (error) {
    fail('pattern', `is not a valid regular expression: ${(error as Error).message}`)
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

function compileKeywords(rule: Rule, fail: (field: string, message: string) => void): Pick<SpanRule, 'first' | 'longest'> | undefined {
  const words = rule.keywords!.map(foldString)
  const empty = words.findIndex((word) => word.trim() === '')
  if (empty >= 0) {
    fail(`keywords[${empty}]`, 'has no letters left once case and accents are folded')
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
