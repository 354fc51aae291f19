/**
 * A queued message's edit in progress, when the message leaves the queue before the edit is saved:
 * it started running (a turn claimed it), it was promoted to steer or removed — from this tab or
 * another. Its editor leaves the page with it; what was typed must not go with it. The store asks
 * here, after each batch it folds, which open edits lost their message and what to tell the user;
 * the text typed goes to the Message box (sent from there it is a new message: the queued one
 * already ran, or is running, as it was).
 */
import type { SessionView } from './view.js'
import { messageText, type WireMessage } from './wire.js'

/** An edit whose message left the queue: the text to give the Message box (null: nothing was changed), and what to say. */
export interface LeftEdit { messageId: string; text: string | null; notice: string }

type Fate = 'started running' | 'was promoted to steer' | 'was removed from the queue'

/** Where a message that left `next-turn` went, and the text it has there (the removed one: its last queued text). */
function fateOf(before: SessionView, after: SessionView, id: string): { fate: Fate; text: string } | null {
  const claimed = after.inFlight.find((entry) => entry.message.id === id)?.message
  if (claimed !== undefined) return { fate: 'started running', text: messageText(claimed) }
  // Claimed and already in a step, within the same batch: its user/message is among the new events.
  for (let index = Math.max(0, before.events.length); index < after.events.length; index += 1) {
    const event = after.events.get(index)
    if (event?.type === 'user/message' && (event.data as WireMessage).id === id) return { fate: 'started running', text: messageText(event.data as WireMessage) }
  }
  const promoted = after.queues['next-step'].find((message) => message.id === id)
  if (promoted !== undefined) return { fate: 'was promoted to steer', text: messageText(promoted) }
  const queued = before.queues['next-turn'].find((message) => message.id === id)
  return queued === undefined ? null : { fate: 'was removed from the queue', text: messageText(queued) }
}

/** Quoted for a notice: the message's first line, cut at 40 characters. */
function quoted(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return `"${line.length > 40 ? `${line.slice(0, 39)}…` : line}"`
}

/**
 * The open edits (message id → the editor's text) whose message is no longer queued in `after`:
 * an edit that changed nothing, or whose text the message already has (the save was applied
 * before the claim), loses nothing and is only said; any other text goes to the Message box.
 */
export function editsLeft(before: SessionView, after: SessionView, edits: ReadonlyMap<string, string>): LeftEdit[] {
  const left: LeftEdit[] = []
  for (const [messageId, edit] of edits) {
    if (after.queues['next-turn'].some((message) => message.id === messageId)) continue
    const went = fateOf(before, after, messageId)
    if (went === null) continue
    const text = edit.trim()
    if (text === '' || text === went.text.trim()) {
      left.push({ messageId, text: null, notice: `${quoted(went.text)} ${went.fate}: its editor closed (nothing in it was unsaved).` })
      continue
    }
    const how = went.fate === 'was removed from the queue' ? 'Enter queues it' : 'Enter queues it as a new follow-up, Ctrl+Enter steers the running turn'
    left.push({ messageId, text, notice: `${quoted(went.text)} ${went.fate} before your edit was saved, so the edit could not apply: your text is in the Message box — ${how}.` })
  }
  return left
}
