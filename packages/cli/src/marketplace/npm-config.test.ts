import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { authorizationFor, readNpmConfig, registryFor, shownUrl } from './npm-config.js'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('readNpmConfig: the registry and tokens npm would use', () => {
  it('project .npmrc over user .npmrc, env over both; scoped registries; ${VAR} from the environment', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bosun-npmrc-'))
    await writeFile(join(dir, 'package.json'), '{}')
    await writeFile(join(dir, '.npmrc'), '@acme:registry=https://npm.acme.dev/repo\n//npm.acme.dev/repo/:_authToken=${ACME_TOKEN}\n')
    await writeFile(join(dir, 'user-npmrc'), 'registry=https://user.example/\n//registry.example/:_authToken=user-token\n; a comment\n')
    const config = readNpmConfig(dir, { npm_config_userconfig: join(dir, 'user-npmrc'), ACME_TOKEN: 'acme-secret', HOME: dir })
    expect(config.registry).toBe('https://user.example/')
    expect(registryFor(config, '@acme/bosun-plugin-x')).toBe('https://npm.acme.dev/repo/')
    expect(registryFor(config, 'bosun-plugin-x')).toBe('https://user.example/')
    expect(authorizationFor(config, 'https://npm.acme.dev/repo/@acme%2fbosun-plugin-x')).toBe('Bearer acme-secret')
    const fromEnv = readNpmConfig(dir, { npm_config_userconfig: join(dir, 'user-npmrc'), npm_config_registry: 'http://127.0.0.1:4873', HOME: dir })
    expect(fromEnv.registry).toBe('http://127.0.0.1:4873/')
  })

  it('a token goes only to the host and path it was written for', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bosun-npmrc-'))
    await writeFile(join(dir, 'npmrc'), '//registry.example/private/:_authToken=t1\n//registry.example/:_auth=dXNlcjpwYXNz\n')
    const config = readNpmConfig(dir, { npm_config_userconfig: join(dir, 'npmrc'), HOME: dir })
    expect(authorizationFor(config, 'https://registry.example/private/pkg')).toBe('Bearer t1')
    expect(authorizationFor(config, 'https://registry.example/pkg')).toBe('Basic dXNlcjpwYXNz')
    expect(authorizationFor(config, 'https://registry.example.evil/private/pkg')).toBeUndefined()
    expect(authorizationFor(config, 'https://other.example/private/pkg')).toBeUndefined()
  })

  it('shows a URL without its credentials or query', () => {
    expect(shownUrl('https://user:pass@registry.example/path?token=x')).toBe('https://registry.example/path')
  })
})
