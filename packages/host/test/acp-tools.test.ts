import type { ChildProcess } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withAcpAgent, type Update } from './acp-client.js'
import { tempDir } from './helpers.js'

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

/** The tool updates of one call, in the order the client got them. */
const forCall = (updates: Update[], id: string) =>
  updates.filter((u) => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && (u as { toolCallId: string }).toolCallId === id)

describe('bosun acp: tool calls', () => {
  it('announces each call as tool_call, then in_progress, then completed or failed with its result; session/load replays them', async () => {
    await mkdir(join(dir, 'tools'))
    await writeFile(join(dir, 'tools', 'lookup.mjs'), `export default [
  { name: 'lookup', description: 'Looks a key up.', parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }, execute: ({ key }) => 'value of ' + key },
  { name: 'boom', description: 'Fails.', parameters: { type: 'object', properties: {} }, execute: () => { throw new Error('the boom tool broke') } },
]\n`)
    await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({
      tools: ['./tools/lookup.mjs'],
      model: { adapter: 'scripted', options: { responses: [
        { text: 'Looking.', toolCalls: [{ name: 'lookup', id: 'call_a', args: { key: 'a' } }, { name: 'boom', id: 'call_b', args: {} }] },
        { text: 'Done.' },
      ] } },
    }))
    const sessionId = await withAcpAgent(dir, children, async (ctx, updates) => {
      const { sessionId } = await ctx.request('session/new', { cwd: dir, mcpServers: [] })
      expect(await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })).toMatchObject({ stopReason: 'end_turn' })
      expect(forCall(updates, 'call_a')).toEqual([
        { sessionUpdate: 'tool_call', toolCallId: 'call_a', title: 'lookup', name: 'lookup', kind: 'other', status: 'pending', rawInput: { key: 'a' } },
        { sessionUpdate: 'tool_call_update', toolCallId: 'call_a', status: 'in_progress' },
        expect.objectContaining({ sessionUpdate: 'tool_call_update', toolCallId: 'call_a', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'value of a' } }] }),
      ])
      const boom = forCall(updates, 'call_b')
      expect(boom.map((u) => (u as { status: string }).status)).toEqual(['pending', 'in_progress', 'failed'])
      expect(JSON.stringify((boom[2] as { content: unknown }).content)).toContain('the boom tool broke')
      // The calls are announced after the text that preceded them, and the answer follows the results.
      const kinds = updates.map((u) => u.sessionUpdate)
      expect(kinds.indexOf('tool_call')).toBeGreaterThan(kinds.indexOf('agent_message_chunk'))
      expect(kinds.lastIndexOf('agent_message_chunk')).toBeGreaterThan(kinds.lastIndexOf('tool_call_update'))
      return sessionId
    })
    await withAcpAgent(dir, children, async (ctx, updates) => {
      await ctx.request('session/load', { sessionId, cwd: dir, mcpServers: [] })
      expect(forCall(updates, 'call_a').map((u) => (u as { status: string }).status)).toEqual(['pending', 'in_progress', 'completed'])
      expect(forCall(updates, 'call_b').map((u) => (u as { status: string }).status)).toEqual(['pending', 'in_progress', 'failed'])
    })
    // A guard against a hang, not a measure: two bosun processes took 17.4 s of the default 20 s
    // in the suite beside stress-ng --cpu 2 (load ~17).
  }, 120_000)
})
