import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readTarballFile } from './tarball.js'

let dir: string
const long = `${'nested-folder/'.repeat(9)}schema.json` // past ustar's 100-byte name field

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-tarball-'))
  await mkdir(join(dir, 'package', long, '..'), { recursive: true })
  await writeFile(join(dir, 'package/package.json'), '{"name":"x"}')
  await writeFile(join(dir, 'package/schema.json'), '{"type":"object"}')
  await writeFile(join(dir, 'package', long), '{"deep":true}')
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('readTarballFile: one file out of a package tarball, in memory', () => {
  it.each(['pax', 'gnu', 'ustar'])('reads files from a %s tarball made by tar', async (format) => {
    const archive = join(dir, `${format}.tgz`)
    const files = format === 'ustar' ? ['package/package.json', 'package/schema.json'] : ['package']
    await promisify(execFile)('tar', [`--format=${format}`, '-czf', archive, '-C', dir, ...files])
    const tarball = await readFile(archive)
    expect(readTarballFile(tarball, './schema.json')).toBe('{"type":"object"}')
    expect(readTarballFile(tarball, 'package.json')).toBe('{"name":"x"}')
    if (format !== 'ustar') expect(readTarballFile(tarball, long)).toBe('{"deep":true}')
    expect(readTarballFile(tarball, 'missing.json')).toBeUndefined()
    expect(readTarballFile(tarball, '../etc/passwd')).toBeUndefined()
  })
})
