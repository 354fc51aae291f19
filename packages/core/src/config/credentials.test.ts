import { describe, expect, it } from 'vitest'
import { credentialInUrl, looksLikeCredential, maskCredentials, quoteFound } from './credentials.js'
import { describeValue } from './problems.js'

// Every credential below carries "SECRET", so that a test can check no message shows one.
const CREDENTIALS: [string, string][] = [
  ['OpenAI key', 'sk-SECRETabcdefghij1234567890ABCDEFGHIJ'],
  ['OpenAI project key', 'sk-proj-SECRETabcdefghij1234567890'],
  ['Anthropic key', 'sk-ant-api03-SECRETabcdef123456'],
  ['a short test key', 'sk-test-SECRET-1234'],
  ['Stripe secret key', 'sk_live_SECRET51H2abcdefghij'],
  ['Groq key', 'gsk_SECRETa1b2c3d4e5f6g7h8i9j0k1l2'],
  ['xAI key', 'xai-SECRETabc123def456ghi789'],
  ['Google API key', 'AIzaSyA-SECRET1234567890abcdefghijk'],
  ['Google OAuth token', 'ya29.SECRETa0AfH6SMBx3jklfds'],
  ['GitHub token', 'ghp_SECRET0123456789abcdefghijklmnopqr'],
  ['GitHub fine-grained token', 'github_pat_11SECRET0123456789abcdefghij'],
  ['GitLab token', 'glpat-SECRETxyz1234567890'],
  ['Slack bot token', 'xoxb-SECRET-1234567890-abcdef'],
  ['Hugging Face token', 'hf_SECRETabcdefghijklmnop123456'],
  ['AWS access key id', 'AKIASECRET1234567890'],
  ['a bearer header value', 'Bearer SECRETtoken123'],
  ['a basic header value', 'Basic U0VDUkVUOnBhc3N3b3Jk'],
  ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTRUNSRVQifQ.SECRETc2lnbmF0dXJl'],
  ['a random base62 run', 'Zx9SECRETq7LmN2pQ4rT8vW1yB3'],
  ['a hex key', 'a3f5c9e1b7d24f6a8c0e2b4d6f8a1c3e'],
  ['URL userinfo', 'https://user:SECRET123@api.example.com/v1'],
  ['URL with a token as user', 'https://SECRETtoken@api.example.com/v1'],
  ['URL api-key parameter', 'https://api.example.com/v1?api-key=SECRET123'],
  ['URL apikey parameter', 'https://api.example.com/v1?model=x&apikey=SECRET123'],
  ['URL key parameter', 'https://maps.example.com/?key=SECRET'],
  ['URL token parameter', 'https://hooks.example.com/in?token=SECRET'],
  ['URL access_token parameter', 'https://api.example.com/me?access_token=SECRET'],
  ['URL sig parameter (Azure SAS)', 'https://x.blob.core.windows.net/c?sv=2020-08-04&sig=SECRETabc'],
  ['URL signature parameter (S3)', 'https://s3.example.com/o?X-Amz-Signature=SECRETabc'],
  ['URL fragment token', 'https://app.example.com/callback#access_token=SECRET'],
  ['userinfo in a URL without its scheme', 'user:SECRET1@api.example.com/v1'],
  ['a key parameter in a URL without its scheme', 'api.example.com/v1?api-key=SECRET1'],
  // A URL that does not parse (its port or host is bad) is quoted by the check that refuses it.
  ['a key parameter in a URL that does not parse', 'https://proxy.example:99999/v1?key=SECRET1'],
  ['userinfo in a URL that does not parse', 'https://user:SECRET1@proxy.example:99999/v1'],
  ['a fragment token in a URL that does not parse', 'https://app.example:99999/cb#access_token=SECRET'],
  ['a query in a URL whose host is broken', 'https://[proxy/v1?token=SECRET1'],
  ['a key inside a sentence', 'my key is sk-proj-SECRETabcdefghij1234567890, thanks'],
  // A connection string of name=value pairs (libpq, ODBC, .NET), which is not a URL.
  ['a password in a connection string', 'host=db user=bosun password=SECRET1'],
  ['a Password= pair ended by ;', 'Server=db;User Id=sa;Password=SECRET1;'],
  ['a PWD= pair', 'DSN=app;UID=sa;PWD=SECRET1'],
]

const ORDINARY = [
  'hot',
  'gpt-4o-mini',
  'claude-3-5-sonnet-20241022',
  'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B',
  'mistralai/Mixtral-8x7B-Instruct-v0.1',
  'anthropic/claude-3.5-sonnet:beta',
  'accounts/fireworks/models/llama-v3p1-70b-instruct',
  'https://api.deepseek.com/v1',
  'https://openrouter.ai/api/v1?ref=bosun&model=x',
  'api.deepseek.com/v1?ref=bosun',
  'http://exa_mple:99999',
  'https://openrouter.ai:99999/api/v1?ref=bosun',
  'someone@example.com',
  'OPENAI_API_KEY',
  'MyCompanyProductionServer2024',
  '550e8400-e29b-41d4-a716-446655440000',
  'sk-learn',
  './tools/read-file.ts',
  '@bosun/plugin-rate-limit',
  'You are a careful assistant.',
]

describe('looksLikeCredential', () => {
  it.each(CREDENTIALS)('takes %s for a credential', (_, value) => {
    expect(looksLikeCredential(value)).toBe(true)
  })

  it.each(ORDINARY)('takes %j for an ordinary value', (value) => {
    expect(looksLikeCredential(value)).toBe(false)
  })
})

describe('credentialInUrl', () => {
  it('tells a credential in the userinfo from one in the query, and finds none in a plain URL', () => {
    expect(credentialInUrl('https://user:SECRET@api.example.com')).toBe('userinfo')
    expect(credentialInUrl('https://api.example.com/v1?api-key=SECRET')).toBe('query')
    expect(credentialInUrl('https://api.example.com/v1?ref=bosun')).toBeUndefined()
    expect(credentialInUrl('https://api.example.com/v1?key=')).toBeUndefined()
    expect(credentialInUrl('sk-proj-SECRETabcdefghij1234567890')).toBeUndefined()
  })
})

describe('quoting a found value', () => {
  it('quotes an ordinary value, cut at 40 characters', () => {
    expect(quoteFound('hot')).toBe('"hot"')
    expect(quoteFound('https://api.deepseek.com/v1')).toBe('"https://api.deepseek.com/v1"')
    expect(quoteFound('x'.repeat(50))).toBe(`"${'x'.repeat(40)}…"`)
  })

  it.each(CREDENTIALS)('describes %s without quoting it, and says what to do instead', (_, value) => {
    const text = quoteFound(value)
    expect(text).not.toContain('SECRET')
    expect(text).toBe(
      'a string that looks like a credential, not shown: put the key in an environment variable and name that variable with the adapter\'s "apiKeyEnv" option (or a plugin\'s own …Env option)',
    )
  })

  it('describeValue, which every "found …" uses, goes through it, inside arrays too', () => {
    expect(describeValue('gpt-4o-mini')).toBe('"gpt-4o-mini"')
    expect(describeValue(['a', 'sk-proj-SECRETabcdefghij1234567890'])).not.toContain('SECRET')
  })
})

describe('maskCredentials', () => {
  it('masks a key followed by characters no key has, as a message quoting it in "export <name>=…" does', () => {
    const message = 'the environment variable X is not set (export ghp_PASTEDabcdefghijklmnopqrstuvwxyz0123=…); or AIzaPASTEDabcdefghijk»'
    expect(maskCredentials(message)).toBe('the environment variable X is not set (export [redacted]); or [redacted]')
  })

  it('masks every credential in a module\'s message and keeps the rest', () => {
    const message =
      'openai(): temperature must be a number (found "sk-proj-SECRETabcdefghij1234567890"); ' +
      'sent Bearer SECRETabcdefgh to https://u:SECRET@h.example.com/x, see https://docs.example.com/errors'
    expect(maskCredentials(message)).toBe(
      'openai(): temperature must be a number (found "[redacted]"); sent Bearer [redacted] to [redacted], see https://docs.example.com/errors',
    )
  })

  it('keeps the end of a sentence after a key out of the mask', () => {
    const message = 'Incorrect API key provided: sk-proj-Tq3xV9mLp2Wz7Rk4Nd8Hs1Jb. Is it Zq8Xv2Lm9Pw4Rt7Yk1Nb6Hc3?! Try sk-proj-Tq3xV9mLp2Wz7Rk4Nd8Hs1Jb...'
    expect(maskCredentials(message)).toBe('Incorrect API key provided: [redacted]. Is it [redacted]?! Try [redacted]...')
  })
})
