// ACP read a prompt's text blocks only: an image or a resource link a client sent was dropped
// without a word, and the turn ran as if it had not been sent (and `initialize` advertised no
// promptCapabilities, while every ACP agent must take resource links). Images are now admitted as
// `POST …/messages` admits them (checked the same way), resource links as a Markdown link, blank
// text beside them is left out, and audio and embedded resources — not advertised — are refused
// with -32602 naming the block. `bosun acp` as a real child process over stdio, real JSONL files.
import type { ChildProcess } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type * as acp from '@agentclientprotocol/sdk'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withAcpAgent, type Update } from './acp-client.js'
import { tempDir } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
const children: ChildProcess[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  await writeFile(join(dir, 'bosun.config.json'), JSON.stringify({ model: { adapter: 'scripted', options: { responses: [{ text: 'seen' }, { text: 'seen again' }] } } }))
})
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
  await cleanup()
})

const withAgent = <T>(op: (ctx: acp.ClientContext, updates: Update[]) => Promise<T>): Promise<T> => withAcpAgent(dir, children, op)

const PNG = 'iVBORw0KGgoAAAANSUhEUg=='
const image = { type: 'image', mimeType: 'image/png', data: PNG } as const

/** The content of each user message the session's log holds. */
async function userContents(sessionId: string): Promise<unknown[]> {
  const lines = (await readFile(join(dir, '.bosun', 'sessions', `${sessionId}.jsonl`), 'utf8')).trim().split('\n').slice(1)
  return lines.map((line) => JSON.parse(line) as { type: string; data: { content?: unknown } }).filter((e) => e.type === 'user/message').map((e) => e.data.content)
}

/** The error a request is refused with (undefined when it is answered). */
const refusal = (answer: Promise<unknown>) => answer.then(() => undefined, (error: unknown) => error as { code?: number; message?: string })

describe('bosun acp: a prompt\'s images and resource links', () => {
  it('initialize advertises images (not audio, not embedded resources)', async () => {
    await withAgent(async (ctx) => {
      const answer = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} })
      expect(answer.agentCapabilities?.promptCapabilities).toEqual({ image: true, audio: false, embeddedContext: false })
    })
  }, 120_000)

  it('an image and a resource link reach the session, blank text beside them left out; session/load replays the image', async () => {
    const sessionId = await withAgent(async (ctx) => {
      const { sessionId } = await ctx.request('session/new', { cwd: dir, mcpServers: [] })
      const prompt: acp.ContentBlock[] = [{ type: 'text', text: '  ' }, image, { type: 'text', text: 'what is in it, and in' }, { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' }]
      expect(await ctx.request('session/prompt', { sessionId, prompt })).toMatchObject({ stopReason: 'end_turn' })
      // An image alone is a prompt too.
      expect(await ctx.request('session/prompt', { sessionId, prompt: [image] })).toMatchObject({ stopReason: 'end_turn' })
      return sessionId
    })
    expect(await userContents(sessionId)).toEqual([
      [{ type: 'image', mediaType: 'image/png', data: PNG }, { type: 'text', text: 'what is in it, and in' }, { type: 'text', text: '[a.ts](file:///w/a.ts)' }],
      [{ type: 'image', mediaType: 'image/png', data: PNG }],
    ])
    await withAgent(async (ctx, updates) => {
      await ctx.request('session/load', { sessionId, cwd: dir, mcpServers: [] })
      const replayed = updates.filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => (u as { content: unknown }).content)
      expect(replayed).toEqual([image, { type: 'text', text: 'what is in it, and in' }, { type: 'text', text: '[a.ts](file:///w/a.ts)' }, image])
    })
  }, 120_000)

  it('audio, an embedded resource and an image a provider would refuse are refused at their index; nothing enters the session', async () => {
    await withAgent(async (ctx) => {
      const { sessionId } = await ctx.request('session/new', { cwd: dir, mcpServers: [] })
      const cases: [acp.ContentBlock, string][] = [
        [{ type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' }, 'prompt[1] is audio: Bosun takes text, images and resource links'],
        [{ type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'export {}' } }, 'prompt[1] is an embedded resource: Bosun takes text, images and resource links'],
        [{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' }, 'prompt[1] is an image of type "image/svg+xml": Bosun takes image/png, image/jpeg, image/gif, image/webp'],
        [{ type: 'image', mimeType: 'image/png', data: 'aGVsbG8=' }, 'prompt[1] is an image whose data is not a PNG image'],
      ]
      for (const [block, message] of cases) {
        const refused = await refusal(ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'see' }, block] }))
        expect(refused?.code, block.type).toBe(-32602)
        expect(refused?.message).toContain(message)
      }
      expect(await userContents(sessionId)).toEqual([])
    })
  }, 120_000)
})
