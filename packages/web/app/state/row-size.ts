/**
 * A first guess at a timeline row's height, before the row is drawn and measured. The
 * virtualiser places unmeasured rows by it: a guess far from the drawn height makes the list
 * correct its scroll position as rows come into view (a jump, and a second layout in that frame),
 * and makes the scrollbar lie about a long session. Measured heights replace it once drawn, and
 * the virtualiser keeps them by row key — so a step collapsed (on screen, hence measured) keeps
 * its collapsed height when its row is scrolled away: the guess assumes the default disclosure.
 */
import type { StepView, TimelineItem } from './view.js'
import { messageText } from './wire.js'

/**
 * Characters per line of the timeline's text (text-sm across the conversation column of a
 * 1280 px window). The constants are fitted to rows drawn in Chromium: a turn with one step, a
 * one-line prompt and an answer of n lines is 161 + 20n px.
 */
const CHARS_PER_LINE = 140
const LINE = 20

const lines = (text: string): number => text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / CHARS_PER_LINE)), 0)

function stepHeight(step: StepView): number {
  const header = 26
  let body = 8
  for (const input of step.inputs) body += 16 + LINE * lines(messageText(input.message)) + 8
  body += step.retries.length * 44 + step.children.length * 88
  for (const part of step.parts) {
    if (part.kind === 'text') body += LINE * lines(part.text) + 8
    else if (part.kind === 'reasoning') body += 28 + 8
    else body += 64 + LINE * Math.min(30, lines(part.card.args) + (part.card.result === null ? 0 : lines(part.card.result.slice(0, 600)))) + 8
  }
  return header + body + 2
}

/** Rows are immutable (a changed turn is a new object): each is estimated once. */
const estimates = new WeakMap<TimelineItem, number>()

export function estimateRowHeight(item: TimelineItem | undefined): number {
  // The pending tail: empty unless steering waits.
  if (item === undefined) return 16
  let height = estimates.get(item)
  if (height === undefined) estimates.set(item, (height = estimate(item)))
  return height
}

function estimate(item: TimelineItem): number {
  if (item.kind === 'compaction') return 16 + 24 + 24 + (item.summary === null ? 0 : 24)
  // The turn's margins, border, header and padding (fitted), then its steps with their gaps.
  let height = 65
  for (const step of item.steps) height += stepHeight(step) + 8
  if (item.rejected !== null) height += 120
  if (item.reason?.kind === 'error') height += 48
  return height
}
