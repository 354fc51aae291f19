// An edit open in the queue dock when its message leaves the queue (queue-edits.ts): what was typed
// goes to the Message box unless nothing is lost, and the notice says where the message went.
import { describe, expect, it } from 'vitest'
import { editsLeft } from '../app/state/queue-edits.js'
import { emptySession, type SessionView } from '../app/state/view.js'
import type { WireMessage } from '../app/state/wire.js'

const message = (id: string, text: string): WireMessage => ({ id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }) as WireMessage
const queued = (...messages: WireMessage[]): SessionView => ({ ...emptySession(), queues: { 'next-turn': messages, 'next-step': [] } })

describe('editsLeft', () => {
  const before = queued(message('a', 'first'), message('b', 'second'))

  it('leaves an edit alone while its message is queued', () => {
    expect(editsLeft(before, queued(message('b', 'second')), new Map([['b', 'second, longer']]))).toEqual([])
  })

  it('gives the text to the Message box when the message started running, was promoted or removed', () => {
    const started = { ...queued(message('b', 'second')), inFlight: [{ message: message('a', 'first'), lane: 'next-turn' as const, turn: 2 }] }
    expect(editsLeft(before, started, new Map([['a', 'first, longer']]))).toEqual([{ messageId: 'a', text: 'first, longer', notice: '"first" started running before your edit was saved, so the edit could not apply: your text is in the Message box — Enter queues it as a new follow-up, Ctrl+Enter steers the running turn.' }])
    const promoted = { ...queued(message('b', 'second')), queues: { 'next-turn': [message('b', 'second')], 'next-step': [message('a', 'first')] } }
    expect(editsLeft(before, promoted, new Map([['a', 'first!']]))[0]).toMatchObject({ text: 'first!', notice: expect.stringMatching(/^"first" was promoted to steer before your edit was saved/) })
    expect(editsLeft(before, queued(message('b', 'second')), new Map([['a', 'first?']]))[0]).toMatchObject({ text: 'first?', notice: expect.stringMatching(/^"first" was removed from the queue before your edit was saved.*Enter queues it\.$/) })
  })

  it('hands no text over when nothing typed is lost: unchanged, or the edit applied before the claim', () => {
    const started = (text: string) => ({ ...queued(message('b', 'second')), inFlight: [{ message: message('a', text), lane: 'next-turn' as const, turn: 2 }] })
    expect(editsLeft(before, started('first'), new Map([['a', 'first ']]))).toEqual([{ messageId: 'a', text: null, notice: '"first" started running: its editor closed (nothing in it was unsaved).' }])
    expect(editsLeft(before, started('first, edited'), new Map([['a', 'first, edited']]))[0]!.text).toBeNull()
  })
})
