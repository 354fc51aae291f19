import { describe, expect, it } from 'vitest'
import { assertSessionId } from '@bosun/core'
import { describeOptions, redact } from '../src/redact.js'
import { newSessionId } from '../src/session-id.js'
import { displayWidth, truncate } from '../src/output.js'

describe('secrets are never printed', () => {
  it('keeps variable names (…Env keys) and redacts values by key or by shape, at any depth', () => {
    expect(
      redact({
        apiKeyEnv: 'OPENAI_API_KEY',
        model: 'gpt-4o-mini',
        apiKey: 'anything at all',
        headers: { Authorization: 'Bearer abcdefgh12345678', 'X-Trace': 'on' },
        organization: 'sk-proj-abcdefghijklmnop',
        list: ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'plain'],
      }),
    ).toEqual({
      apiKeyEnv: 'OPENAI_API_KEY',
      model: 'gpt-4o-mini',
      apiKey: '<redacted>',
      headers: { Authorization: '<redacted>', 'X-Trace': 'on' },
      organization: '<redacted>',
      list: ['<redacted>', 'plain'],
    })
  })

  it('describes options on one line, long lists by their length', () => {
    expect(describeOptions({ baseURL: 'https://api.deepseek.com', apiKeyEnv: 'DEEPSEEK_API_KEY', token: 'x'.repeat(40) })).toBe(
      'baseURL: "https://api.deepseek.com", apiKeyEnv: "DEEPSEEK_API_KEY", token: "<redacted>"',
    )
    expect(describeOptions({ responses: [{ text: 'a long scripted answer number one' }, { text: 'and another long one' }] })).toBe('responses: [2 items]')
  })
})

describe('session ids', () => {
  it('are short, readable, sortable and valid: local date and time, then four random characters', () => {
    const id = newSessionId(new Date(2026, 2, 12, 14, 22, 5))
    expect(id).toMatch(/^20260312-142205-[a-z2-9]{4}$/)
    expect(() => assertSessionId(id)).not.toThrow()
    expect(newSessionId(new Date(2026, 2, 12, 14, 22, 6)) > id).toBe(true)
  })
})

describe('terminal widths', () => {
  it('count wide characters twice and escape sequences not at all', () => {
    expect(displayWidth('\u001b[1mbold\u001b[22m')).toBe(4)
    expect(displayWidth('日本')).toBe(4)
    expect(truncate('hello world', 6)).toBe('hello…')
  })
})
