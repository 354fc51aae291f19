import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { Io } from '../io.js'
import { confirm } from './confirm.js'

function io(input: string | undefined, tty = false): { io: Io; asked: () => string } {
  const stdin = Object.assign(new PassThrough(), tty ? { isTTY: true } : {})
  const stderr = new PassThrough()
  let asked = ''
  stderr.on('data', (chunk: Buffer) => (asked += chunk.toString()))
  if (input === undefined) stdin.end()
  else stdin.end(input)
  return { io: { stdin, stderr, stdout: new PassThrough(), cwd: '/', env: {}, onInterrupt: () => () => {} }, asked: () => asked }
}

describe('confirm: one line from stdin decides', () => {
  it.each([['y\n', true], ['YES\n', true], [' yes \n', true], ['n\n', false], ['\n', false], ['yep\n', false], ['y', true]])('%j → %s', async (input, expected) => {
    const { io: streams, asked } = io(input)
    expect(await confirm(streams, 'Install x?')).toBe(expected)
    // A pipe echoes nothing: the answer as taken ends the line, or the next output runs on after it.
    expect(asked()).toBe(`Install x? [y/N] ${expected ? 'yes' : 'no'}\n`)
  })

  it('stdin that ends with no answer is a no', async () => {
    const { io: streams, asked } = io(undefined)
    expect(await confirm(streams, 'Install x?')).toBe(false)
    expect(asked()).toBe('Install x? [y/N] no\n')
  })

  it('on a terminal, whose echo of the Enter ends the line, nothing is added', async () => {
    const { io: streams, asked } = io('y\n', true)
    expect(await confirm(streams, 'Install x?')).toBe(true)
    expect(asked()).toBe('Install x? [y/N] ')
  })
})
