import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { definePlugin } from '../plugin.js'
import { memoryStore } from '../store/memory.js'
import { createAgentFromConfig } from './create.js'
import { loadConfig } from './load.js'
import type { ConfigStage } from './stage.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-stage-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** An `onStage` that records each stage as it begins and as it settles. */
function recorder(): { log: string[]; onStage: (stage: ConfigStage) => () => void } {
  const log: string[] = []
  const name = (stage: ConfigStage) => (stage.kind === 'config-file' ? `config-file ${stage.file}` : `plugin-setup ${stage.plugin} #${stage.index}`)
  return {
    log,
    onStage: (stage) => {
      log.push(`begin ${name(stage)}`)
      return () => log.push(`settled ${name(stage)}`)
    },
  }
}

describe('onStage: the waits on user code that the loader cannot bound', () => {
  it('loadConfig reports the config file whose code runs, and when it has settled', async () => {
    await writeFile(join(dir, 'bosun.config.mjs'), 'await Promise.resolve()\nexport default { system: "hi" }\n')
    const { log, onStage } = recorder()
    const loaded = await loadConfig({ cwd: dir, validate: false, onStage })
    expect(loaded.config.system).toBe('hi')
    expect(log).toEqual([`begin config-file ${join(dir, 'bosun.config.mjs')}`, `settled config-file ${join(dir, 'bosun.config.mjs')}`])
  })

  it('a JSON config runs no code: no stage', async () => {
    await writeFile(join(dir, 'bosun.config.json'), '{}')
    const { log, onStage } = recorder()
    await loadConfig({ cwd: dir, validate: false, onStage })
    expect(log).toEqual([])
  })

  it('createAgentFromConfig reports each plugin setup in order, settled even when it throws', async () => {
    const order: string[] = []
    const first = definePlugin({ name: 'first', setup: () => void order.push('first ran') })
    const second = definePlugin({ name: 'second', setup: async () => void order.push('second ran') })
    const { log, onStage } = recorder()
    const agent = await createAgentFromConfig({ plugins: [first, [second, {}]] }, { store: memoryStore(), onStage })
    await agent.close()
    expect(log).toEqual(['begin plugin-setup first #0', 'settled plugin-setup first #0', 'begin plugin-setup second #1', 'settled plugin-setup second #1'])
    expect(order).toEqual(['first ran', 'second ran'])

    const broken = definePlugin({ name: 'broken', setup: () => { throw new Error('no') } })
    const failing = recorder()
    await expect(createAgentFromConfig({ plugins: [broken] }, { store: memoryStore(), onStage: failing.onStage })).rejects.toMatchObject({ code: 'PLUGIN_SETUP_FAILED' })
    expect(failing.log).toEqual(['begin plugin-setup broken #0', 'settled plugin-setup broken #0'])
  })
})
