// An array from code may have holes (`new Array(3)`, `[1, , 3]`): the walks of the options
// checks (values JSON cannot hold, strings that may be `…Env` names or secrets) take a hole as
// `undefined`, left out — as JSON.stringify writes it null — instead of failing with a TypeError
// that names nothing of the options.
import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { assertOptions, UNDECLARED_OPTIONS, type JsonSchema } from '../schema.js'

const data: JsonSchema = { type: 'object', properties: { payload: { 'x-bosun-data': true } } }

describe('arrays with holes in options', () => {
  it('are walked: a hole is left out, the values around it are checked', () => {
    // eslint-disable-next-line no-sparse-arrays
    const holes = { list: [1, , 3], empty: new Array(3) }
    expect(assertOptions(UNDECLARED_OPTIONS, holes, 'thing()')).toBe(holes)
    expect(assertOptions(data, { payload: holes }, 'thing()')).toBeDefined()
    // eslint-disable-next-line no-sparse-arrays
    const error = (() => { try { assertOptions(UNDECLARED_OPTIONS, { list: [, 5n, , 'MY_KEYEnv'], tokenEnv: 'not a name' }, 'thing()') } catch (e) { return e } })()
    expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
    expect((error as BosunError).details).toMatchObject({ paths: '$.tokenEnv,$.list[1]' })
  })
})
