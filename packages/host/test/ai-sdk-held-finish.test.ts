// The AI SDK turn stream holds a turn's last parts until its log says they are stored
// (`TurnLog.committed`). A log that ends meanwhile — the session closed, a cluster lease lost
// during the turn-end flush — must not drop them: the turn did end, and its client would otherwise
// never get `finish` and `[DONE]`. Driven through `uiTurnStream` with the events of a real turn
// (an agent on the memory store) and a log whose commit and end the test controls.
import { describe, expect, it } from 'vitest'
import { createAgent, memoryStore, type SessionEvent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { uiTurnStream, type TurnLog } from '../src/ai-sdk.js'
import { InboxFold } from '../src/log.js'

describe('AI SDK turn stream: the held finish', () => {
  it('is sent once stored even if the log ended while it was held, then [DONE]', async () => {
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'all of it' }] }), store: memoryStore() })
    await agent.followup('hi')
    await agent.whenIdle()
    const events: readonly SessionEvent[] = [...agent.session.events]
    await agent.close()

    let ended = false
    let store!: () => void
    let asked = 0
    const log: TurnLog = {
      foldTo: () => new InboxFold(),
      since: (seq) => events.slice(seq + 1),
      committed: () => {
        asked++
        return new Promise<void>((resolve) => { store = resolve })
      },
      // No new events ever come: every wait is a keep-alive's (the stream is pulled, so no spin).
      wait: async () => true,
      ended: () => ended,
      end: () => {},
    }
    const reader = uiTurnStream(log, { turn: 1, after: -1, keepAliveMs: 20 }).getReader()
    const decoder = new TextDecoder()
    let text = ''
    const read = async (): Promise<boolean> => {
      const { value, done } = await reader.read()
      if (!done) text += decoder.decode(value, { stream: true })
      return done
    }
    // The turn's parts up to its end are held for the store; keep-alives meanwhile.
    while (asked === 0) await read()
    expect(text).not.toContain('"type":"finish"')
    // The session closes while the store has not answered; then the store answers.
    ended = true
    await read()
    store()
    while (!(await read()));
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
    expect(text).toContain('"type":"finish"')
    expect(text).toContain('all of it'.slice(0, 3))
  })
})
