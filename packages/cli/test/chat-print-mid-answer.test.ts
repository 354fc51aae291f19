// A line the chat prints while a rendered answer streams — `/queue` typed meanwhile (found walking
// the chat as a new user): the screen wrote the answer's unfinished line into the transcript as if
// it were finished, then the renderer printed the whole line again when it was, so a stray
// fragment of the answer ("A fairly long a") stood above the answer. The unfinished line now stays
// in the live area, below the printed line, and the answer is shown once.
import { beforeAll, describe } from 'vitest'
import { it, requireBuild, writeProject } from './helpers.js'
import { Keys, runInPty, type PtyResult } from './pty.js'

beforeAll(requireBuild)

const explain = (result: PtyResult) => `${result.error ?? ''} at step ${result.step}\n--- screen ---\n${result.screen}`
const ANSWER = 'Streaming slowly, one word at a time, this answer leaves room to type a slash command while it is still being written.'

describe.concurrent('bosun chat: a line printed while the answer streams', () => {
  it.for([['rendered', []], ['--raw', ['--raw']]] as const)('%s: the answer is shown once, whole, below the printed line', async ([, flags], { dir, expect }) => {
    await writeProject(dir, { model: { adapter: 'scripted', options: { responses: [{ text: ANSWER, chunkSize: 4, delayMs: 80 }] } } })
    const result = await runInPty(['chat', '--session', 'mid', ...flags], [
      { expect: '○ idle' },
      { send: `go${Keys.enter}` },
      { expect: 'Streaming' },
      { send: `/queue${Keys.enter}` },
      { expect: 'nothing queued' },
      { expect: 'turn 1 completed' },
      { send: Keys.ctrlD },
      { wait_exit: true },
    ], { cwd: dir, cols: 200 })
    expect(result.ok, explain(result)).toBe(true)
    const rows = result.screen.split('\n')
    expect(rows.filter((row) => row.startsWith('Streaming')), explain(result)).toEqual([ANSWER])
    expect(rows.findIndex((row) => row.includes('nothing queued')), explain(result)).toBeLessThan(rows.indexOf(ANSWER))
  })
})
