import { describe, expect, it } from 'vitest'
import { assertSessionId } from '@bosun/core'
import { describeOptions, redact } from '../src/redact.js'
import { newSessionId } from '../src/session-id.js'
import { displayWidth, truncate } from '../src/output.js'
import { safeJson, safeStream, safeStyled, safeText, safeValue } from '../src/terminal-safe.js'

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

  it('redacts what the core takes for a credential inside a longer string: a connection string\'s password, a URL\'s user:pass@ or ?key=', () => {
    expect(
      redact({
        dsn: 'Server=db;Database=app;User Id=app;Password=hunter2',
        libpq: 'host=db user=app password=hunter2',
        endpoint: 'postgres://app:hunter2@db:5432/app',
        webhook: 'https://hooks.example/notify?api-key=hunter2',
        plain: 'Server=db;Database=app',
        url: 'https://api.example/v1',
      }),
    ).toEqual({
      dsn: '<redacted>',
      libpq: '<redacted>',
      endpoint: '<redacted>',
      webhook: '<redacted>',
      plain: 'Server=db;Database=app',
      url: 'https://api.example/v1',
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

describe('terminal-safe text', () => {
  it('shows C0 controls as control pictures, DEL as ␡ and C1 controls as \\u escapes, keeping newlines and tabs', () => {
    expect(safeText('a\u001b]0;t\u0007b\tc\nd\u007f\u009b2J')).toBe('a␛]0;t␇b\tc\nd␡\\u009b2J')
    expect(safeText('one\r\ntwo\rthree')).toBe('one\ntwo␍three')
  })

  it('makes every string of a value safe, keys included', () => {
    expect(safeValue({ 'k\u001b': ['\u0007', 1, null, { x: '\u001b[2J' }] })).toEqual({ 'k␛': ['␇', 1, null, { x: '␛[2J' }] })
  })

  it('lets the CLI\'s own colours through a styled line, and nothing else', () => {
    expect(safeStyled('\u001b[2mdim\u001b[22m \u001b]52;c;x\u0007 \u001b[2J')).toBe('\u001b[2mdim\u001b[22m ␛]52;c;x␇ ␛[2J')
  })

  it('escapes DEL and C1 controls in JSON text, which still parses to the same value', () => {
    const value = { text: 'a\u007fb\u009bc\u001b' }
    const json = safeJson(JSON.stringify(value))
    expect(json).toBe('{"text":"a\\u007fb\\u009bc\\u001b"}')
    expect(JSON.parse(json)).toEqual(value)
  })

  it('keeps a CRLF line end that a stream splits between two pieces', () => {
    const stream = safeStream()
    expect([stream.write('line\r'), stream.write('\nnext\r'), stream.end()]).toEqual(['line', '\nnext', '␍'])
  })
})
