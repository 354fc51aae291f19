import { beforeAll, describe } from 'vitest'
import type { BosunEventMap } from '@bosun/core'
import { bosun, it, readEvents, requireBuild, writeProject } from './helpers.js'
import { OPENAI_ADAPTER, recordedPayloads, recordedText, replayServer } from './provider-replay.js'
import { runInPty } from './pty.js'

beforeAll(requireBuild)

// A recorded OpenAI answer. The first attempt streams its first 12 payloads (some text), then the
// error payload a provider sends after the 200 when it fails mid-answer (SERVER: retried); the
// second attempt streams the whole answer.
const PAYLOADS = recordedPayloads('openai-text.chunks.txt')
const ANSWER = recordedText(PAYLOADS)
const FAILED_PART = recordedText(PAYLOADS.slice(0, 12))
const MID_STREAM_ERROR = JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } })

async function failingThenWhole(dir: string) {
  const server = await replayServer([
    { payloads: [...PAYLOADS.slice(0, 12), MID_STREAM_ERROR], done: false },
    { payloads: PAYLOADS, done: true },
  ])
  await writeProject(dir, {
    model: { adapter: './openai.mjs', options: { model: 'gpt-4.1-nano', baseURL: server.baseURL, idleTimeoutMs: 60_000 } },
    plugins: [['retry', { minDelayMs: 0, maxDelayMs: 0 }]],
  }, { 'openai.mjs': OPENAI_ADAPTER })
  return server
}

describe.concurrent('bosun run: an attempt that fails mid-answer and is retried', () => {
  it('a pipe or a file gets exactly the answer, once: not the failed attempt\'s text before it', async ({ dir, expect }) => {
    const server = await failingThenWhole(dir)
    try {
      const result = await bosun(['run', '-s', 'retried', 'invent a holiday'], { cwd: dir })
      expect(result.code).toBe(0)
      expect(server.requests()).toBe(2)
      // Before, stdout was the failed attempt's text and then the whole answer.
      expect(result.stdout).toBe(`${ANSWER}\n`)
      expect(result.stderr).toContain('↻ retrying (attempt 2 in 0ms) after SERVER')
      // The failed attempt did stream text: its chunks stay in the log, not in the message.
      const events = await readEvents(dir, 'retried')
      const streamed = events
        .filter((event) => event.type === 'assistant/chunk')
        .map((event) => (event.data as BosunEventMap['assistant/chunk']).chunk)
        .map((chunk) => (chunk.type === 'text-delta' ? chunk.text : ''))
        .join('')
      expect(streamed).toBe(FAILED_PART + ANSWER)
      const message = events.find((event) => event.type === 'assistant/message')!.data as BosunEventMap['assistant/message']
      expect(message.message.content).toEqual([{ type: 'text', text: ANSWER }])
    } finally {
      await server.close()
    }
  })

  it('a terminal sees the answer stream, and is told on stderr that the answer starts over', async ({ dir, expect }) => {
    const server = await failingThenWhole(dir)
    try {
      const result = await runInPty(['run', 'invent a holiday'], [{ wait_exit: true }], { cwd: dir, cols: 200, rows: 60 })
      expect(result.exit_code).toBe(0)
      const screen = result.screen
      const failed = screen.indexOf('**Holiday Name:** Harmony Day')
      const restart = screen.indexOf('↻ the answer starts over: the text above was the failed attempt\'s')
      expect(failed).toBeGreaterThanOrEqual(0)
      expect(restart).toBeGreaterThan(failed)
      expect(screen.indexOf('**Holiday Name:** Harmony Day', restart)).toBeGreaterThan(restart)
    } finally {
      await server.close()
    }
  })
})

describe.concurrent('bosun chat: an attempt that fails mid-answer and is retried', () => {
  it('the transcript says, below the failed attempt\'s text, that the answer starts over', async ({ dir, expect }) => {
    const server = await failingThenWhole(dir)
    try {
      const result = await bosun(['chat', '--session', 'retried'], { cwd: dir, input: 'invent a holiday\n' })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`${FAILED_PART}\n  ↻ retrying (attempt 2 in 0ms) after SERVER\n  ↻ the answer starts over: the text above was the failed attempt's, and is not part of the answer\n${ANSWER}\n`)
    } finally {
      await server.close()
    }
  })
})
