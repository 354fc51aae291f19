import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const bridge = resolve(dirname(fileURLToPath(import.meta.url)), '../../adapters/ai-sdk')

/**
 * A project with `@bosun/adapter-ai-sdk` and `@ai-sdk/openai` (the bridge's dev copy) in its
 * node_modules, linked as an install would put them, and `config` as its bosun.config.ts.
 */
export async function aiSdkProject(dir: string, config: string): Promise<void> {
  await mkdir(join(dir, 'node_modules/@bosun'), { recursive: true })
  await mkdir(join(dir, 'node_modules/@ai-sdk'), { recursive: true })
  await symlink(bridge, join(dir, 'node_modules/@bosun/adapter-ai-sdk'), 'dir')
  await symlink(await realpath(join(bridge, 'node_modules/@ai-sdk/openai')), join(dir, 'node_modules/@ai-sdk/openai'), 'dir')
  await writeFile(join(dir, 'bosun.config.ts'), config)
}
