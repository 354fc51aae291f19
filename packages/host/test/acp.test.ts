import type { ChildProcess } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withAcpAgent, type Update } from './acp-client.js'
import { tempDir, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
const children: ChildProcess[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  await cleanup()
})

/** Starts `bosun acp` and drives it as an ACP client; resolves with what `op` returns. */
const withAgent = <T>(op: (ctx: acp.ClientContext, updates: Update[]) => Promise<T>): Promise<T> => withAcpAgent(dir, children, op)

const texts = (updates: Update[], kind: string): string =>
  updates.filter((u) => u.sessionUpdate === kind).map((u) => ((u as { content: { text?: string } }).content.text ?? '')).join('')

describe('bosun acp', () => {
  it('new, prompt (a busy prompt is queued), cancel, and load replayed from the log', async () => {
    await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({ model: { adapter: 'scripted', options: { responses: [
      { reasoning: 'hmm', text: 'first answer', chunkSize: 2, delayMs: 20 },
      { text: 'second answer' },
      { text: 'z'.repeat(500), chunkSize: 1, delayMs: 20 },
    ] } } }))
    const sessionId = await withAgent(async (ctx, updates) => {
      const { sessionId } = await ctx.request('session/new', { cwd: dir, mcpServers: [] })
      const first = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] })
      const second = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] })
      expect(await first).toMatchObject({ stopReason: 'end_turn' })
      expect(await second).toMatchObject({ stopReason: 'end_turn' })
      expect(texts(updates, 'agent_message_chunk')).toBe('first answersecond answer')
      expect(texts(updates, 'agent_thought_chunk')).toBe('hmm')
      const third = ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'three' }] })
      await waitFor(() => texts(updates, 'agent_message_chunk').includes('zz'), 30_000, () => `the third turn's answer to stream (agent_message_chunk text so far: ${JSON.stringify(texts(updates, 'agent_message_chunk'))})`)
      await ctx.notify('session/cancel', { sessionId })
      expect(await third).toMatchObject({ stopReason: 'cancelled' })
      return sessionId
    })
    await withAgent(async (ctx, updates) => {
      await ctx.request('session/load', { sessionId, cwd: dir, mcpServers: [] })
      expect(texts(updates, 'user_message_chunk')).toBe('onetwothree')
      expect(texts(updates, 'agent_message_chunk')).toMatch(/^first answersecond answerz+$/)
    })
    // Each prompt is logged as a waking send, so one a crash cuts before its turn is woken on resume (recovery.waiting).
    const log = (await readFile(join(dir, '.bosun', 'sessions', `${sessionId}.jsonl`), 'utf8')).trim().split('\n').slice(1).map((line) => JSON.parse(line) as { type: string; data: { source?: unknown } })
    expect(log.filter((e) => e.type === 'user/message').map((e) => e.data.source)).toEqual(Array(3).fill({ kind: 'user', via: 'acp', delivery: 'followup' }))
    // A guard against a hang, not a measure: two bosun processes took 12.1 s of the default 20 s
    // in the suite beside stress-ng --cpu 2 (load ~17).
  }, 120_000)

  it('a prompt with no words is refused (invalid params), and nothing enters the session', async () => {
    // It became a one-space user message (V4): a blank message providers may refuse on every later turn.
    await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({ model: { adapter: 'scripted', options: { responses: [{ text: 'ok' }] } } }))
    await withAgent(async (ctx) => {
      const { sessionId } = await ctx.request('session/new', { cwd: dir, mcpServers: [] })
      // An image alone is a prompt (acp-prompt-blocks.test); blank text beside nothing else is not.
      for (const prompt of [[], [{ type: 'text', text: '   ' }], [{ type: 'text', text: '' }, { type: 'text', text: '\n' }]]) {
        const refused = await ctx.request('session/prompt', { sessionId, prompt: prompt as acp.ContentBlock[] }).then(() => undefined, (error: unknown) => error as { code?: number; message?: string })
        expect(refused?.code, JSON.stringify(prompt)).toBe(-32602)
        expect(refused?.message).toContain('the prompt has no text: send at least one text block with some words')
      }
      expect(await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).toMatchObject({ stopReason: 'end_turn' })
      const log = (await readFile(join(dir, '.bosun', 'sessions', `${sessionId}.jsonl`), 'utf8')).trim().split('\n').slice(1).map((line) => JSON.parse(line) as { type: string })
      expect(log.filter((e) => e.type === 'user/message')).toHaveLength(1)
    })
  }, 120_000)
})
