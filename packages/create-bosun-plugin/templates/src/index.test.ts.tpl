import { describe, expect, it } from 'vitest'
import { expectEntered, expectManifest, expectRejected, testPlugin } from '@bosun/testkit'
import plugin from './index.js'

describe('{{name}}', () => {
  it('rejects input that contains a configured word, naming the word', async () => {
    const kit = await testPlugin(plugin, { words: ['password'] })
    const turn = await kit.send('my Password is hunter2')
    expectRejected(turn, { by: '{{name}}', metadata: { reason: 'blocked-word', word: 'password' } })
    expect(kit.model.requests).toBe(0) // the model never saw it
  })

  it('lets other input enter unchanged', async () => {
    const kit = await testPlugin(plugin, { words: ['password'] }, { responses: [{ text: 'Hello!' }] })
    const turn = await kit.send('hello')
    expectEntered(turn, ['hello'])
    expect(turn.reply).toBe('Hello!')
  })

  it('matches case when asked to', async () => {
    const kit = await testPlugin(plugin, { words: ['Secret'], ignoreCase: false })
    expectEntered(await kit.send('a secret'), ['a secret'])
    expectRejected(await kit.send('a Secret'))
  })

  it('refuses options that break its schema when the agent is built', async () => {
    await expect(testPlugin(plugin, { words: [] })).rejects.toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID' })
  })

  it('says in package.json what it is: keyword, kind, the hooks it taps, its options schema, the core it supports', async () => {
    await expectManifest(new URL('..', import.meta.url), plugin, { words: ['password'] })
  })
})
