import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { expectEntered, testPlugin } from '@bosun/testkit'
import contentFilter, { type Rule } from './index.js'

// The card rule the README shows (and docs/plugins.md, and the index's doc comment) is what users
// copy. `\b(?:\d[ -]?){13,16}\b` also took the space after the number: "my card [card]and more".
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const pattern = JSON.parse(`"${/id: 'card', pattern: '([^']+)'/.exec(readme)![1]}"`) as string

describe("the README's card rule", () => {
  it('redacts a card number written with spaces, dashes or none, and keeps the text around it', async () => {
    const kit = await testPlugin(contentFilter, { rules: [{ id: 'card', pattern, action: 'redact', replacement: '[card]' } satisfies Rule] })
    expectEntered(await kit.send('my card 4111 1111 1111 1111 and more, or 4111-1111-1111-1111. or 4111111111111111 x'), [
      'my card [card] and more, or [card]. or [card] x',
    ])
  })

  it('is the one docs/plugins.md and the doc comment of the plugin show', () => {
    const quoted = /id: 'card', pattern: '([^']+)'/
    expect(quoted.exec(readFileSync(new URL('../../../../docs/plugins.md', import.meta.url), 'utf8'))?.[1]).toBe(quoted.exec(readme)![1])
    expect(quoted.exec(readFileSync(new URL('./index.ts', import.meta.url), 'utf8'))?.[1]).toBe(quoted.exec(readme)![1])
  })

  it('leaves shorter and longer digit runs alone', async () => {
    const kit = await testPlugin(contentFilter, { rules: [{ id: 'card', pattern, action: 'redact', replacement: '[card]' } satisfies Rule] })
    expectEntered(await kit.send('call 555 1234 or ref 12345678901234567890'), ['call 555 1234 or ref 12345678901234567890'])
  })
})
