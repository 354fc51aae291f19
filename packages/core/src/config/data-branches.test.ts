// An `x-bosun-data` mark under a branch the value may not take (one `anyOf`/`oneOf` branch, a
// `then` or `else`) must not hide the options beside it from the secrets and `…Env` checks: which
// branch applies is the value's to say, and a pasted key in the other shape would pass unseen.
import { describe, expect, it } from 'vitest'
import { assertOptions, type JsonSchema } from '../schema.js'
import { ENV_NAME_REFUSED } from './env-names.js'
import { checkSecrets } from './secrets.js'

const PASTED = 'sk-live-PASTEDabcdefghijklmnopqrstuvwxyz0123'

/** `target` is either free-form text (data) or an object of options with a secret-looking key. */
const eitherShape: JsonSchema = {
  type: 'object',
  properties: {
    target: { anyOf: [{ type: 'string', 'x-bosun-data': true }, { type: 'object', properties: { apiKey: { type: 'string' } } }] },
  },
}

/** `body` is data in `raw` mode only; otherwise its `tokenEnv` is an option. */
const byMode: JsonSchema = {
  type: 'object',
  properties: { mode: { enum: ['raw', 'signed'] }, body: { type: 'object' } },
  if: { properties: { mode: { const: 'raw' } } },
  then: { properties: { body: { 'x-bosun-data': true } } },
  else: { properties: { body: { properties: { tokenEnv: { type: 'string' } } } } },
}

function thrown(run: () => void): Error {
  try {
    run()
  } catch (error) {
    return error as Error
  }
  throw new Error('did not throw')
}

describe('x-bosun-data under a branch: counts only when every branch carries it', () => {
  it('an anyOf branch the value does not take does not hide a literal secret', () => {
    const findings = checkSecrets({ target: { apiKey: PASTED } }, '$.plugins[0][1]', {}, eitherShape)
    expect(findings.map(({ path, literal }) => ({ path, literal }))).toEqual([{ path: '$.plugins[0][1].target.apiKey', literal: true }])
    expect(JSON.stringify(findings)).not.toContain(PASTED)
  })

  it('a then branch does not hide a pasted key from the else branch\'s …Env option', () => {
    const error = thrown(() => assertOptions(byMode, { mode: 'signed', body: { tokenEnv: PASTED } }, 'signer()'))
    expect(error.message.split('\n').slice(1)).toEqual([`  - $.body.tokenEnv: ${ENV_NAME_REFUSED}`])
    expect(error.message).not.toContain(PASTED)
  })

  it('a mark every branch carries still makes data', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { args: { oneOf: [{ type: 'object', 'x-bosun-data': true }, { type: 'array', 'x-bosun-data': true }] } },
    }
    expect(() => assertOptions(schema, { args: { targetEnv: 'eu-west-1' } }, 'deployer()')).not.toThrow()
    expect(checkSecrets({ args: [{ targetEnv: 'eu-west-1' }] }, '$', {}, schema)).toEqual([])
  })
})
