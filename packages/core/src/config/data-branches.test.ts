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

describe('x-bosun-data: a value shaped like a credential is still refused', () => {
  it('a URL with a credential in the data is refused, unshown; its keys are still the data\'s own', () => {
    const schema: JsonSchema = { type: 'object', properties: { args: { type: 'object', 'x-bosun-data': true } } }
    const url = `https://deploy:${PASTED}@api.example.com/v1`
    const findings = checkSecrets({ args: { targetEnv: 'eu-west-1', endpoint: url, apiKeyName: 'primary' } }, '$', {}, schema)
    expect(findings.map(({ path, literal }) => ({ path, literal }))).toEqual([{ path: '$.args.endpoint', literal: true }])
    expect(JSON.stringify(findings)).not.toContain(PASTED)
  })
})

describe('x-bosun-data: an object shared by data and options', () => {
  it('is checked where it is options, though it was walked first where part of it is data (a YAML alias, an object from code)', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { raw: { type: 'object', properties: { payload: { 'x-bosun-data': true } } }, signed: { type: 'object' } },
    }
    const shared = { payload: { tokenEnv: PASTED } }
    const error = thrown(() => assertOptions(schema, { raw: shared, signed: shared }, 'signer()'))
    expect(error.message.split('\n').slice(1)).toEqual([`  - $.signed.payload.tokenEnv: ${ENV_NAME_REFUSED}`])
    expect(error.message).not.toContain(PASTED)
  })

  it('a cycle through a recursive schema still ends', () => {
    const schema: JsonSchema = { $ref: '#/$defs/node', $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' }, data: { 'x-bosun-data': true } } } } }
    const node: Record<string, unknown> = { data: { keyEnv: 'not a name' }, tokenEnv: 'not a name' }
    node['next'] = node
    // The root and `next` are reached through different sub-schemas: walked once more, then it ends.
    const paths = checkSecrets(node, '$', {}, schema).map(({ path }) => path.replace(/(\.next)+/, ''))
    expect([...new Set(paths)]).toEqual(['$.tokenEnv'])
  })
})
