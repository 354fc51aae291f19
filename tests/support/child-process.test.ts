// watchChild: a test's child ends within a bound, and a failed spawn is reported, not thrown.
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { watchChild } from './child-process.js'

/** A Node child running `code`, with a pipe on stdout: it prints `ready` once its SIGTERM handler is in place. */
function node(code: string) {
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
  const ready = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()))
  return { child, ready }
}

describe('watchChild', () => {
  it('stop() kills a child that ignores SIGTERM once the grace is over', async () => {
    const { child, ready } = node(`process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 60_000)`)
    const watched = watchChild(child)
    await ready
    await watched.stop(100)
    expect(watched.hasEnded()).toBe(true)
    expect(child.signalCode).toBe('SIGKILL')
  })

  it('stop() lets a child that ends on SIGTERM end by itself', async () => {
    const { child, ready } = node(`process.on('SIGTERM', () => process.exit(7)); console.log('ready'); setInterval(() => {}, 60_000)`)
    const watched = watchChild(child)
    await ready
    await watched.stop(60_000)
    expect(child.exitCode).toBe(7)
  })

  it('endsWithin says whether the child ended by itself in time', async () => {
    const { child, ready } = node(`console.log('ready'); process.stdin.resume(); setInterval(() => {}, 60_000)`)
    const watched = watchChild(child)
    await ready
    expect(await watched.endsWithin(50)).toBe(false)
    child.kill('SIGTERM')
    expect(await watched.endsWithin(60_000)).toBe(true)
  })

  it('a spawn that fails ends the watch and says why, instead of an uncaught error', async () => {
    const watched = watchChild(spawn(process.execPath, ['-e', '0'], { cwd: '/no/such/folder', stdio: 'pipe' }))
    await watched.ended
    expect(watched.spawnError()).toMatchObject({ code: 'ENOENT' })
    await watched.stop(100) // nothing to stop: resolves at once
  })
})
