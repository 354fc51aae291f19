import { BosunError, type ModelChunk } from '@bosun/core'
import type { CompiledRule, LengthRule, SpanRule } from './rules.js'
import { earliest, heldBackExcerpt } from './scan.js'

/**
 * The error that ends a model stream whose text matched a `reject` output rule. The turn ends
 * `error` with `{ code: 'CONTENT_FILTERED', retryable: false, details: { rule, excerpt } }`; the
 * text before the match is kept as the interrupted `assistant/message`, the match never is.
 */
export class ContentFilteredError extends BosunError {
  /** Asking the same model again would most likely produce the same text: not retryable. */
  readonly retryable = false

  constructor(rule: string, matched: string) {
    super(
      'CONTENT_FILTERED',
      `The model's output matched the content-filter rule "${rule}"; the response was stopped there.`,
      { details: { rule, excerpt: matched } },
    )
  }
}

/** The output rules, ready for {@link filterOutput}. */
export interface OutputRules {
  spans: SpanRule[]
  /** The tightest `maxLength` rule, if any. */
  limit: LengthRule | undefined
  /** Characters held back before they are passed on. */
  window: number
}

/** The output side of the rules, or `undefined` when no rule looks at output. */
export function outputRules(rules: readonly CompiledRule[], outputWindow = 64): OutputRules | undefined {
  const output = rules.filter((rule) => rule.output)
  if (output.length === 0) return undefined
  const spans = output.filter((rule): rule is SpanRule => rule.kind === 'span')
  const limits = output.filter((rule): rule is LengthRule => rule.kind === 'length')
  const limit = limits.reduce<LengthRule | undefined>((a, b) => (a && a.maxLength <= b.maxLength ? a : b), undefined)
  const longest = Math.max(0, ...spans.map((rule) => rule.longest ?? 0))
  return { spans, limit, window: Math.max(outputWindow, 2 * longest) }
}

export interface OutputHooks {
  /** A redaction was made: `count` matches of `rule` in the text released just now. */
  redacted(rule: string, count: number): void
  /** Calls `listener` when the stream starts over (a retry plugin sent the request again). */
  onRestart(listener: () => void): () => void
}

/**
 * Filters the text of a model stream. Text is passed on with the last `window` characters held
 * back, so that a match split across chunks is found whole before any of it leaves: a match of
 * up to `window` characters is always caught (keywords always, as the window is at least twice
 * the longest). Other chunks (reasoning, tool calls, usage, finish) pass unchanged, after the
 * text held before them.
 *
 * - `redact` rules replace their matches in the text passed on (what is logged and assembled).
 * - A `reject` rule passes on the text before the match, then throws {@link ContentFilteredError}.
 * - `maxLength` counts the characters of text received: `redact` cuts the text there and appends
 *   the replacement (the rest of the text is dropped); `reject` passes on the allowed prefix,
 *   then throws.
 */
export async function* filterOutput(stream: AsyncIterable<ModelChunk>, rules: OutputRules, hooks: OutputHooks): AsyncGenerator<ModelChunk> {
  const { spans, limit, window } = rules
  let pending = '' // received, not yet passed on
  let context = '' // the original text just before `pending`, for lookbehinds and word edges
  let received = 0
  let cut = false // a maxLength redaction cut the text: the rest is dropped
  let restarted = false
  const stopWatching = hooks.onRestart(() => (restarted = true))
  const text = (value: string): ModelChunk => ({ type: 'text-delta', text: value })

  /** Passes on what is decided: everything when `final`, else all but the last `window` characters. */
  function* release(final: boolean): Generator<ModelChunk> {
    const buffer = context + pending
    const safe = final ? buffer.length : Math.max(context.length, buffer.length - window)
    const counts = new Map<string, number>()
    let out = ''
    let cursor = context.length
    let upTo = safe
    for (let hit = earliest(spans, buffer, cursor); hit && hit.start < safe; hit = earliest(spans, buffer, cursor)) {
      if (!final && hit.end > safe) {
        upTo = hit.start // the match may still grow: hold it whole
        break
      }
      if (hit.rule.action === 'reject') {
        out += buffer.slice(cursor, hit.start)
        if (out !== '') yield text(out)
        throw new ContentFilteredError(hit.rule.id, heldBackExcerpt(buffer.slice(hit.start, hit.end), hit.rule.quotable))
      }
      out += buffer.slice(cursor, hit.start) + hit.rule.replacement
      cursor = hit.end
      counts.set(hit.rule.id, (counts.get(hit.rule.id) ?? 0) + 1)
    }
    out += buffer.slice(cursor, upTo)
    for (const [rule, count] of counts) hooks.redacted(rule, count)
    context = buffer.slice(Math.max(0, upTo - window), upTo)
    pending = buffer.slice(upTo)
    if (out !== '') yield text(out)
  }

  try {
    for await (const chunk of stream) {
      if (restarted) {
        // The attempt that failed is over: what it left held back is not part of the answer.
        restarted = false
        pending = context = ''
        received = 0
        cut = false
      }
      if (chunk.type !== 'text-delta') {
        yield* release(true)
        yield chunk
        continue
      }
      if (cut) continue
      if (limit && received + chunk.text.length > limit.maxLength) {
        let allowed = chunk.text.slice(0, limit.maxLength - received)
        if (/[\uD800-\uDBFF]$/.test(allowed)) allowed = allowed.slice(0, -1) // never split a surrogate pair
        pending += allowed
        received += allowed.length
        yield* release(true)
        if (limit.action === 'reject') throw new ContentFilteredError(limit.id, heldBackExcerpt(chunk.text.slice(allowed.length), false))
        cut = true
        hooks.redacted(limit.id, 1)
        yield text(limit.replacement)
        continue
      }
      received += chunk.text.length
      pending += chunk.text
      yield* release(false)
    }
    yield* release(true)
  } catch (error) {
    // The model failed mid-stream: pass on the text held back (filtered), so the interrupted
    // message keeps everything that was delivered.
    if (!(error instanceof ContentFilteredError) && pending !== '') yield* release(true)
    throw error
  } finally {
    stopWatching()
  }
}
