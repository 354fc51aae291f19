// createAgent's maxParallelTools is checked against the schema a config file's is checked with:
// a code caller and a config get the same line for each mistake.
import { describe, expect, it } from 'vitest'
import { validateConfig } from './config/validate.js'
import { createAgent } from './create-agent.js'
import { BosunError } from './errors.js'
import type { ModelAdapter } from './model.js'
import type { OptionsCase } from './testing/options-lines.js'

/** A model for agents that are never run: the options are refused first. */
const standIn: ModelAdapter = { name: 'stand-in', stream: () => (async function* () {})() }

const CASES: readonly OptionsCase[] = [
  [0, '$.maxParallelTools: must be >= 1 (found 0)'],
  [-3, '$.maxParallelTools: must be >= 1 (found -3)'],
  [2.5, '$.maxParallelTools: must be an integer (found 2.5)'],
  ['8', '$.maxParallelTools: must be an integer (found "8")'],
  [null, '$.maxParallelTools: must be an integer (found null)'],
]

describe('createAgent maxParallelTools', () => {
  it('is refused from code with the line a config gets', async () => {
    for (const [maxParallelTools, line] of CASES) {
      const error = await createAgent({ model: standIn, maxParallelTools: maxParallelTools as number }).then(
        async (agent) => agent.close(),
        (e: unknown) => e,
      )
      expect(error, line).toMatchObject({ code: 'INVALID_ARGUMENT', message: `Invalid options for createAgent():\n  - ${line}` })
    }
  })

  it('is refused from a config file with the same line', async () => {
    const model = { adapter: { kind: 'bosun-adapter', name: 'stand-in', create: () => ({}) } }
    for (const [maxParallelTools, line] of CASES) {
      const error = await validateConfig({ config: { model, maxParallelTools } as never, file: '/project/bosun.config.ts', dir: '/project' }, { env: {} }).catch((e: unknown) => e)
      expect(BosunError.is(error, 'CONFIG_INVALID'), line).toBe(true)
      expect((error as Error).message).toContain(`\n  - ${line}`)
    }
  })

  it('takes a positive integer, 8 when left out', async () => {
    const agent = await createAgent({ model: standIn, maxParallelTools: 1 })
    await agent.close()
    const byDefault = await createAgent({ model: standIn })
    await byDefault.close()
  })
})
