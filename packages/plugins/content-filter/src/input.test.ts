import { describe, expect, it } from 'vitest'
import { createUserMessage, formatTimeline, messageText } from '@bosun/core'
import { expectEntered, expectRejected, testPlugin } from '@bosun/testkit'
import contentFilter, { type Rule } from './index.js'

const filter = (...rules: Rule[]) => testPlugin(contentFilter, { rules })

describe('reject', () => {
  it('a regex match ends the turn blocked with {rule, messageId, excerpt}; the model never sees it', async () => {
    const kit = await filter({ id: 'banned', pattern: 'forbidden-[a-z]+', action: 'reject' })
    const message = createUserMessage('say forbidden-word, please', { id: 'm1' })
    const turn = await kit.send(message)
    expectRejected(turn, { by: 'content-filter', metadata: { rule: 'banned', messageId: 'm1', excerpt: 'forbidden-word' } })
    expect(kit.model.requests).toBe(0)
    // the blocked turn reads from the log alone (this is what `bosun log` prints)
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["say forbidden-word, please"]
      turn/start 1
      splice next-turn @0 -1
      rejected 1 by=content-filter {"rule":"banned","messageId":"m1","excerpt":"forbidden-word"}
      turn/end 1 blocked by=content-filter {"rule":"banned","messageId":"m1","excerpt":"forbidden-word"}"
    `)
  })

  it('does not quote a match that looks like a credential: a rule made to catch keys keeps them out of its excerpt', async () => {
    const kit = await filter({ id: 'secret', pattern: 'sk-[a-z0-9]{8,}', action: 'reject' })
    const turn = await kit.send(createUserMessage('my key is sk-abcdef123456, keep it', { id: 'm1' }))
    expectRejected(turn, { by: 'content-filter', metadata: { rule: 'secret', messageId: 'm1', excerpt: '[looks like a credential: not quoted]' } })
    const rejections = turn.events.filter((e) => e.type === 'agent/pre-step/rejected' || e.type === 'turn/end')
    expect(rejections).toHaveLength(2)
    expect(JSON.stringify(rejections)).not.toContain('abcdef123456')
  })

  it('keywords ignore case and accents: "CAFÉ" matches the keyword "cafe"', async () => {
    const kit = await filter({ id: 'drinks', keywords: ['cafe', 'creme brulee'], action: 'reject' })
    expectRejected(await kit.send('Un CAFÉ, please'), { metadata: { rule: 'drinks', excerpt: 'CAFÉ' } })
    expectRejected(await kit.send('crème BRÛLÉE'), { metadata: { excerpt: 'crème BRÛLÉE' } })
    expectRejected(await kit.send('cafe\u0301 decomposed'), { metadata: { excerpt: 'cafe\u0301' } })
    expectEntered(await kit.send('cafeteria'), ['cafeteria']) // whole words by default
  })

  it('keywords match inside longer words with wholeWords: false, and always in scripts without spaces', async () => {
    const loose = await filter({ id: 'k', keywords: ['cafe'], wholeWords: false, action: 'reject' })
    expectRejected(await loose.send('cafeteria'), { metadata: { excerpt: 'cafe' } })
    const cjk = await filter({ id: 'k', keywords: ['密码'], action: 'reject' })
    expectRejected(await cjk.send('我的密码是'), { metadata: { excerpt: '密码' } })
  })

  it('maxLength rejects a longer message, with its length and the limit', async () => {
    const kit = await filter({ id: 'long', maxLength: 10, action: 'reject' })
    expectEntered(await kit.send('ten chars!'), ['ten chars!'])
    const message = createUserMessage('eleven chars', { id: 'm2' })
    expectRejected(await kit.send(message), { metadata: { rule: 'long', messageId: 'm2', length: 12, maxLength: 10, excerpt: 'eleven chars' } })
  })

  it('a custom predicate from code: true, or the part that matched', async () => {
    const kit = await filter(
      { id: 'shouting', test: (text) => text.length > 3 && text === text.toUpperCase(), action: 'reject' },
      { id: 'links', test: (text) => /https?:\/\/\S+/.exec(text)?.[0] ?? false, action: 'reject' },
    )
    expectRejected(await kit.send('STOP IT'), { metadata: { rule: 'shouting', excerpt: 'STOP IT' } })
    expectRejected(await kit.send('see https://example.com/x now'), { metadata: { rule: 'links', excerpt: 'https://example.com/x' } })
    expectEntered(await kit.send('fine'), ['fine'])
  })

  it('the predicate gets the message too (here: only users are judged)', async () => {
    const kit = await filter({ id: 'users', test: (_, message) => message.source.kind === 'user', action: 'reject' })
    expectRejected(await kit.send('from a user'))
    expectEntered(await kit.send(createUserMessage('from a plugin', { source: { kind: 'plugin' } })), ['from a plugin'])
  })

  it('judges every claimed message, steered context included', async () => {
    const kit = await filter({ id: 'secret', pattern: 'password', action: 'reject' })
    const context = kit.inject(createUserMessage('the password is 1234', { source: { kind: 'plugin' } }))
    expectRejected(await kit.send('hello'), { metadata: { messageId: context.id } })
  })
})

describe('redact', () => {
  it('the message enters rewritten under the same id and source; the model sees the redacted text', async () => {
    const kit = await filter(
      { id: 'card', pattern: '\\b\\d{4}(?: ?\\d{4}){3}\\b', action: 'redact', replacement: '[card]' },
      { id: 'names', keywords: ['Zoë'], action: 'redact' },
    )
    const message = createUserMessage('zoe paid with 4111 1111 1111 1111 and ZOË with 5500000000000004', {
      id: 'm1', source: { kind: 'user', userId: 'ada' },
    })
    const turn = await kit.send(message)
    expectEntered(turn, ['[redacted] paid with [card] and [redacted] with [card]'])
    expect(turn.messages[0]).toMatchObject({ id: 'm1', source: { kind: 'user', userId: 'ada' } })
    expect(kit.model.recorded[0]!.messages.at(-1)).toMatchObject({
      role: 'user', id: 'm1', content: [{ type: 'text', text: '[redacted] paid with [card] and [redacted] with [card]' }],
    })
    expect(formatTimeline(turn.events, { requests: false })).toMatchInlineSnapshot(`
      "splice next-turn @0 +["zoe paid with 4111 1111 1111 1111 and ZOË with 5500000000000…"]
      turn/start 1
      splice next-turn @0 -1
      content-filter/redacted {"turn":1,"step":1,"scope":"input","rule":"card","count":2,"messageId":"m1"}
      content-filter/redacted {"turn":1,"step":1,"scope":"input","rule":"names","count":2,"messageId":"m1"}
      step/start 1.1
      user/message "[redacted] paid with [card] and [redacted] with [card]"
      assistant/message "echo: [redacted] paid with [card] and [redacted] with [card]"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
  })

  it('the original text stays only in the splice event that queued it', async () => {
    const kit = await filter({ id: 'card', pattern: '\\d{16}', action: 'redact' })
    await kit.send('card 4111111111111111')
    const holding = kit.events.filter((event) => JSON.stringify(event.data).includes('4111111111111111'))
    expect(holding.map((event) => event.type)).toEqual(['agent/inbox/spliced'])
  })

  it('maxLength cuts the text and appends the replacement', async () => {
    const kit = await filter({ id: 'long', maxLength: 5, action: 'redact', replacement: '…' })
    expectEntered(await kit.send('hello world'), ['hello…'])
  })

  it('a predicate that returns a string redacts every occurrence of it', async () => {
    const kit = await filter({ id: 'me', test: (text) => (text.includes('Ada') ? 'Ada' : false), action: 'redact', replacement: 'A.' })
    expectEntered(await kit.send('Ada met Ada'), ['A. met A.'])
  })

  it('rules apply left to right across the text; a later reject still rejects', async () => {
    const kit = await filter(
      { id: 'digits', pattern: '\\d+', action: 'redact', replacement: '#' },
      { id: 'bad', keywords: ['forbidden'], action: 'reject' },
    )
    expectEntered(await kit.send('call 555 1234'), ['call # #'])
    expectRejected(await kit.send('call 555, forbidden'), { metadata: { rule: 'bad' } })
  })

  it('images and messages that match nothing pass untouched (the same objects)', async () => {
    const kit = await filter({ id: 'x', pattern: 'secret', action: 'redact' })
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'AAAA' }
    const clean = createUserMessage([{ type: 'text', text: 'look' }, image])
    const dirty = createUserMessage([{ type: 'text', text: 'a secret' }, image, { type: 'text', text: 'and' }])
    kit.inject(clean)
    const turn = await kit.send(dirty)
    expect(turn.messages[0]).toBe(kit.events.find((e) => e.type === 'user/message')!.data)
    expect(turn.messages.map((m) => m.content)).toEqual([clean.content, [{ type: 'text', text: 'a [redacted]' }, image, { type: 'text', text: 'and' }]])
    expect(messageText(turn.messages[1]!)).toBe('a [redacted]and')
  })
})

describe('output-only rules', () => {
  it('do not judge input', async () => {
    const kit = await filter({ id: 'out', keywords: ['secret'], action: 'reject', scope: 'output' })
    expectEntered(await kit.send('a secret'), ['a secret'])
  })
})
