// A config that cannot be loaded before `bosun plugins add` installs (a TS config importing the
// very package being added) still names its variables: read from its text, they are withheld from
// the install scripts, though their names match no secret's pattern (`DATABASE_URL`).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BosunError, ErrorCodes } from '@bosun/core'
import { afterEach, describe, expect, it } from 'vitest'
import { configBeforeInstall, envNamesInText } from './install-env-config.js'
import { installEnvFor } from './install-env.js'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

const TS_CONFIG = `import deployer from 'not-installed-yet'
const hookEnv = \`DEPLOY_HOOK\`
export default {
  model: { adapter: 'openai', options: { apiKeyEnv: 'MY_PROVIDER_KEY' } },
  store: ['@bosun/store-postgres', { urlEnv: "DATABASE_URL" }],
  plugins: [[deployer, { hookEnv }]],
}
`

describe('plugins add: a config that cannot be loaded', () => {
  it('has the variables its text names withheld from the install scripts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bosun-add-cfg-'))
    const file = join(dir, 'bosun.config.ts')
    await writeFile(file, TS_CONFIG)
    const cfg = await configBeforeInstall<{ file: string | undefined }>(async () => {
      throw new BosunError(ErrorCodes.CONFIG_INVALID, `${file}: Cannot find package 'not-installed-yet'`, { details: { file } })
    })
    expect(cfg).toMatchObject({ loaded: undefined, file })
    const env = { PATH: '/usr/bin', DATABASE_URL: 'postgres://app:pw@db/app', MY_PROVIDER_KEY: 'k', DEPLOY_HOOK: 'https://hooks/x' }
    const { env: kept, withheld } = installEnvFor(dir, env, cfg.loaded, cfg.namedInText)
    expect(withheld).toEqual(['DATABASE_URL', 'DEPLOY_HOOK', 'MY_PROVIDER_KEY'])
    expect(kept).toEqual({ PATH: '/usr/bin' })
  })

  it('reads the names from JSON and YAML text too', () => {
    expect(envNamesInText('{ "store": ["x", { "urlEnv": "DATABASE_URL" }] }')).toEqual(['DATABASE_URL'])
    expect(envNamesInText('model:\n  options:\n    apiKeyEnv: MY_KEY\n    baseUrlEnv: "BASE"\n')).toEqual(['MY_KEY', 'BASE'])
  })
})
