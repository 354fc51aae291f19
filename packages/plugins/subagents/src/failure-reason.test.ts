// A child whose turn fails tells its parent why: the model decides from it whether to try again
// (a rate limit, a server error) or to do the work another way (a refused request, a blocked turn).
import { describe, expect, it } from 'vitest'
import { ofType, parent, textOf, toolResults, until } from '../test/harness.js'

describe('a child that fails', () => {
  it('foreground: the tool result names the error code and message, not only "error"', async () => {
    const root = await parent({
      script: {
        go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'fail' } }] }, { text: 'ok' }],
        fail: [{ error: { status: 400, message: 'context too long for this model', retryable: false } }],
      },
    })
    root.followup('go')
    await root.whenIdle()
    const [result] = toolResults(root.session.events)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toMatch(/end reason: error: [A-Z_]+: .*context too long for this model/)
    await root.close()
  })

  it('background: the settle message says the error, so the parent can act on it', async () => {
    const root = await parent({
      script: {
        go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'fail', mode: 'background' } }] }, { text: 'waiting' }, { text: 'seen' }],
        fail: [{ error: { status: 500, message: 'upstream exploded', retryable: false } }],
      },
    })
    root.followup('go')
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1 && root.status === 'idle', 'the settlement')
    const settle = ofType(root.session.events, 'user/message').map((e) => e.data as { id: string; content: { type: string; text?: string }[] })
      .find((m) => m.id.startsWith('settle:'))!
    expect(textOf(settle.content)).toMatch(/stopped \(error: [A-Z_]+: .*upstream exploded\), settlement 1\./)
    await root.close()
  })
})
