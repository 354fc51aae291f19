import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, it } from 'vitest'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { threeLevelChain } from '../test/chain.js'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-subagents-'))
  dirs.push(dir)
  return dir
}

describe('a three-level chain', () => {
  it('on the JSONL store: parent → child → grandchild, answers travel up, depths and delegation headers are stored, and the tree reopens', async () => {
    const dir = await tempDir()
    await threeLevelChain(() => jsonlStore({ dir }))
  })

  it('on the SQLite store: the same chain, in one database file', async () => {
    const file = join(await tempDir(), 'sessions.db')
    await threeLevelChain(() => sqliteStore({ file }))
  })
})
