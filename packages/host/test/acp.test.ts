import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import * as acp from '@agentclientprotocol/sdk'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir, waitFor } from './helpers.js'

const BIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../cli/dist/bin.js')

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

type Update = acp.SessionNotification['update']

/** Starts `bosun acp` and drives it as an ACP client; resolves with what `op` returns. */
async function withAgent<T>(op: (ctx: acp.ClientContext, updates: Update[]) => Promise<T>): Promise<T> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json).`)
  const child = spawn(process.execPath, [BIN, 'acp'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  children.push(child)
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t))
  const updates: Update[] = []
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>)
  const app = acp.client({ name: 'test' }).onNotification('session/update', ({ params }) => {
    updates.push(params.update)
  })
  try {
    return await app.connectWith(stream, async (ctx) => {
      await ctx.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
      return op(ctx, updates)
    })
  } catch (error) {
    throw new Error(`${String(error)}\nstderr: ${stderr}`)
  } finally {
    child.stdin.end()
    await new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())))
  }
}

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
  })
})
