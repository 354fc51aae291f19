import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { GENERATED_VALIDATORS } from '../generated-validators.js'
import { ajv, type JsonSchema } from '../schema.js'

const script = fileURLToPath(new URL('../../scripts/generate-validators.mjs', import.meta.url))

// Values each schema refuses in several ways (and some it takes): the generated validator must
// give exactly the errors ajv gives, so that every message built from them reads the same.
const SAMPLES: unknown[] = [
  {},
  [],
  null,
  'text',
  42,
  { model: 3, plugins: {}, store: ['jsonl', 1, 2], system: 5, extra: true },
  { model: { adapter: '', options: [] }, plugins: [[], ['x', 'y'], 7], tools: [{}], limits: { maxSteps: -1 } },
  { responses: [{ text: 1, toolCalls: [{}], finishReason: 'nope', delayMs: -1, chunkSize: 0 }, 3], loop: 'yes', extra: 1 },
  { responses: [{ text: 'hi' }] },
  { dir: '', fsync: 'sometimes', maxLineBytes: 1.5, journal: { groupMs: Infinity } },
  { dir: '.bosun/sessions' },
  { responses: [{ error: { code: 'x' }, usage: { inputTokens: NaN } }] },
]

describe('generated validators (scripts/generate-validators.mjs)', () => {
  it('are up to date with the schemas they were generated from', async () => {
    await expect(promisify(execFile)(process.execPath, [script, '--check'])).resolves.toBeDefined()
  }, 60_000)

  it.each([...GENERATED_VALIDATORS.keys()].map((key) => [(JSON.parse(key) as JsonSchema).description ?? (JSON.parse(key) as JsonSchema).title, key]))(
    '%s: the same verdict and the same errors as ajv compiling the schema',
    (_, key) => {
      const generated = GENERATED_VALIDATORS.get(key) as ((value: unknown) => boolean) & { errors?: unknown }
      const compiled = ajv().compile(JSON.parse(key) as JsonSchema)
      for (const sample of SAMPLES) {
        expect(generated(sample), JSON.stringify(sample)).toBe(compiled(sample))
        expect(generated.errors ?? null, JSON.stringify(sample)).toEqual(compiled.errors ?? null)
      }
    },
  )
})
