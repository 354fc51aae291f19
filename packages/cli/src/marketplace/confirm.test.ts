import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { Io } from '../io.js'
import { confirm } from './confirm.js'

function io(input: string | undefined): { io: Io; asked: () => string } {
  const stdin = new PassThrough()
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
    expect(asked()).toBe('Install x? [y/N] ')
  })

  it('stdin that ends with no answer is a no', async () => {
    expect(await confirm(io(undefined).io, 'Install x?')).toBe(false)
  })
})
