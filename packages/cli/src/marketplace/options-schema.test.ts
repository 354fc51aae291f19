// The options schema `bosun plugins info|add` read out of a package's tarball: one ajv refuses
// (`"type": "integr"`) was shown by info as an option of type "integr" and refused by add as the
// user's OPTION_INVALID ("see the options with: bosun plugins info", which showed it as fine).
// Tarballs made by tar, as npm pack makes them; the client hands them over as the registry would.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bosunManifest, fetchOptionsSchema } from './manifest.js'
import type { RegistryClient } from './registry-client.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-options-schema-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** `bosun-plugin-guard@1.0.0` whose tarball's schema.json holds `schema`. */
async function published(name: string, schema: unknown) {
  await mkdir(join(dir, name, 'package'), { recursive: true })
  await writeFile(join(dir, name, 'package/schema.json'), JSON.stringify(schema))
  await promisify(execFile)('tar', ['-czf', join(dir, `${name}.tgz`), '-C', join(dir, name), 'package'])
  const tarball = await readFile(join(dir, `${name}.tgz`))
  const version = { name: 'bosun-plugin-guard', version: '1.0.0', keywords: ['bosun-plugin'], bosun: { options: './schema.json' }, dist: { tarball: 'http://127.0.0.1/x.tgz' } }
  const client = { tarball: async () => tarball } as unknown as RegistryClient
  return fetchOptionsSchema(client, version, bosunManifest(version))
}

describe('fetchOptionsSchema: the schema must be one the loader can compile', () => {
  it('returns a valid schema', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }
    expect(await published('valid', schema)).toEqual(schema)
  })

  it('refuses a schema ajv refuses, as the package\'s fault, naming what to do', async () => {
    await expect(published('invalid', { type: 'object', properties: { n: { type: 'integr' } }, required: ['n'] })).rejects.toMatchObject({
      code: 'REGISTRY_ERROR',
      message: expect.stringMatching(
        /^bosun-plugin-guard@1\.0\.0: its options schema \(\.\/schema\.json\) is not a valid JSON Schema \(schema is invalid: data\/properties\/n\/type must be .*\), so no config could load it\. Nothing was installed or written\. Tell its author, or pick another version: bosun plugins info bosun-plugin-guard@<version>\.$/,
      ),
    })
  })
})
