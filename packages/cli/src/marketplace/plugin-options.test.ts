import { describe, expect, it } from 'vitest'
import { checkOptionsAsConfig, optionRows, optionsFromPairs } from './plugin-options.js'

const schema = {
  type: 'object',
  properties: {
    turnsPerMinute: { type: 'integer', minimum: 1, description: 'Turns allowed per minute.' },
    ratio: { type: 'number', default: 0.5 },
    enabled: { type: 'boolean', default: true },
    words: { type: 'array', items: { type: 'string' } },
    limits: { type: 'array', items: { type: 'integer' } },
    onLimit: { enum: ['reject', 'requeue'] },
    rules: { type: 'object' },
  },
  required: ['turnsPerMinute'],
  additionalProperties: false,
}

describe('optionsFromPairs: --option key=value converted by the schema, then validated', () => {
  it('converts each value by its schema type', () => {
    expect(optionsFromPairs(['turnsPerMinute=20', 'ratio=0.25', 'enabled=false', 'words=a, b,c', 'limits=1,2', 'onLimit=requeue', 'rules={"x":1}'], schema, 'p')).toEqual({
      turnsPerMinute: 20, ratio: 0.25, enabled: false, words: ['a', 'b', 'c'], limits: [1, 2], onLimit: 'requeue', rules: { x: 1 },
    })
  })

  it.each([
    [['turnsPerMinute=fast'], 'option "turnsPerMinute" expects an integer, got "fast".'],
    [['turnsPerMinute=1.5'], 'option "turnsPerMinute" expects an integer, got "1.5".'],
    [['turnsPerMinute=1', 'enabled=yes'], 'option "enabled" expects a boolean (true or false), got "yes".'],
    [['turnsPerMinute=1', 'limits=1,x'], 'option "limits[]" expects an integer, got "x".'],
    [['turnsPerMinute=1', 'rules=nope'], 'option "rules" expects an object (as JSON), got "nope".'],
    [['turnsPerMinute=1', 'colour=red'], 'Invalid options for p:\n  - $.colour: unknown key "colour"; the known keys are turnsPerMinute, ratio, enabled, words, limits, onLimit, rules.\nNothing was installed or written.'],
    // A typo of an option's name gets the config loader's "did you mean" (the same words a config file gets).
    [['turnsPerMinit=20'], '  - $.turnsPerMinit: unknown key "turnsPerMinit" — did you mean "turnsPerMinute"?\n'],
    [['turnsPerMinute=1', 'onlimit=requeue'], 'Invalid options for p:\n  - $.onlimit: unknown key "onlimit" — did you mean "onLimit"?\nNothing was installed or written. See the options with: bosun plugins info p'],
    [['turnsPerMinute'], '--option "turnsPerMinute": expected key=value, the option\'s name, "=" and its value'],
    [['turnsPerMinute=1', 'turnsPerMinute=2'], '--option "turnsPerMinute=2": option "turnsPerMinute" is given twice (turnsPerMinute=1, then turnsPerMinute=2): give each option once'],
  ])('%j is refused: %s', (pairs, message) => {
    expect(() => optionsFromPairs(pairs, schema, 'p')).toThrow(message)
  })

  it('tries each type of a type list in its order: ["integer", "string"] takes 5000 and "5s"', () => {
    const either = { type: 'object', properties: { timeout: { type: ['integer', 'string'] }, flag: { type: ['boolean', 'null'] } } }
    expect(optionsFromPairs(['timeout=5000', 'flag=true'], either, 'p')).toEqual({ timeout: 5000, flag: true })
    expect(optionsFromPairs(['timeout=5s'], either, 'p')).toEqual({ timeout: '5s' })
    expect(() => optionsFromPairs(['flag=maybe'], either, 'p')).toThrow('option "flag" expects a boolean (true or false), got "maybe".')
    expect(optionRows(either).map((row) => row.type)).toEqual(['integer | string', 'boolean'])
  })

  it('checks the whole schema: a missing required option and a value out of range are named by path', () => {
    expect(() => optionsFromPairs([], schema, 'p')).toThrow(/Invalid options for p:\n\s+- \$\.turnsPerMinute/)
    expect(() => optionsFromPairs(['turnsPerMinute=0'], schema, 'p')).toThrow(/\$\.turnsPerMinute/)
    expect(() => optionsFromPairs(['turnsPerMinute=1', 'onLimit=drop'], schema, 'p')).toThrow(/\$\.onLimit/)
  })
})

describe('optionRows: the table bosun plugins info shows', () => {
  it('lists key, type, required, default and description in the schema\'s order', () => {
    expect(optionRows(schema).map((row) => [row.key, row.type, row.required, row.default, row.description])).toEqual([
      ['turnsPerMinute', 'integer', true, undefined, 'Turns allowed per minute.'],
      ['ratio', 'number', false, '0.5', undefined],
      ['enabled', 'boolean', false, 'true', undefined],
      ['words', 'string[]', false, undefined, undefined],
      ['limits', 'integer[]', false, undefined, undefined],
      ['onLimit', '"reject" | "requeue"', false, undefined, undefined],
      ['rules', 'object', false, undefined, undefined],
    ])
  })
})

describe('checkOptionsAsConfig: what the config loader will refuse, said before anything is installed', () => {
  const SECRET = 'npm_AbCdEf123456-THE-SECRET'
  const alerting = {
    type: 'object',
    properties: { words: { type: 'array', items: { type: 'string' } }, alertToken: { type: 'string' }, alertTokenEnv: { type: 'string' }, alertUrl: { type: 'string' } },
    additionalProperties: false,
  }
  const where = { dir: process.cwd(), env: { ALERT_TOKEN: 'set' } }

  it('refuses a literal secret and a URL with a credential, which the schema passes, never showing them', async () => {
    for (const [pair, problem] of [
      [`alertToken=${SECRET}`, '$.alertToken: a literal secret in a config file is refused'],
      [`alertUrl=https://bot:${SECRET}@hooks.example/alert`, '$.alertUrl: holds a URL with a credential before the host'],
    ] as const) {
      const options = optionsFromPairs(['words=x', pair], alerting, 'bosun-plugin-alert') // the schema passes them
      const error = await checkOptionsAsConfig(options, alerting, 'bosun-plugin-alert', where).catch((caught: Error) => caught)
      expect(error).toMatchObject({ code: 'OPTION_INVALID' })
      const message = (error as Error).message
      expect(message).toMatch(/^Invalid options for bosun-plugin-alert:\n {2}- /)
      expect(message).toContain(problem)
      expect(message).toMatch(/\nNothing was installed or written\. See the options with: bosun plugins info bosun-plugin-alert$/)
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('THE-SECRET')
    }
  })

  it('leaves a variable an …Env option names that is not set here to the closing config check (it may be set where bosun runs)', async () => {
    await checkOptionsAsConfig({ alertTokenEnv: 'NOT_SET_HERE' }, alerting, 'bosun-plugin-alert', where)
    await expect(checkOptionsAsConfig({ alertTokenEnv: 'NOT_SET_HERE', alertToken: 'a-literal-token-value' }, alerting, 'bosun-plugin-alert', where)).rejects.toMatchObject({
      code: 'OPTION_INVALID',
      message: expect.not.stringContaining('NOT_SET_HERE'),
    })
  })

  it('passes options the config will load, with or without a schema', async () => {
    await checkOptionsAsConfig({ words: ['x'], alertTokenEnv: 'ALERT_TOKEN', alertUrl: 'https://hooks.example/alert' }, alerting, 'bosun-plugin-alert', where)
    await checkOptionsAsConfig({ anything: 1 }, undefined, 'bosun-plugin-free', where)
  })
})
