import { describe, expect, it } from 'vitest'
import { shownBaseURL } from './base-url.js'

describe('shownBaseURL', () => {
  it('origin and path, no trailing /, no userinfo, no fragment; the query omitted by default', () => {
    expect(shownBaseURL('https://user:pw@api.example.com/v1/?key=k#frag')).toBe('https://api.example.com/v1')
    expect(shownBaseURL(new URL('http://127.0.0.1:8080'))).toBe('http://127.0.0.1:8080')
  })

  it('with query: "redact", every value is [redacted]; a name that is not a plain word is redacted whole', () => {
    expect(shownBaseURL('https://proxy.example/v1?api-version=2024-10-21&key=s3cret&stream', 'redact')).toBe(
      'https://proxy.example/v1?api-version=[redacted]&key=[redacted]&stream',
    )
    expect(shownBaseURL('https://proxy.example/v1?sk-proj-SECRETabcdefghij1234567890', 'redact')).toBe('https://proxy.example/v1?[redacted]')
    expect(shownBaseURL('https://proxy.example/v1', 'redact')).toBe('https://proxy.example/v1')
  })

  it('an unparsable URL is not quoted', () => {
    expect(shownBaseURL('https://exa mple.com/?key=s3cret')).toBe('the configured baseURL')
  })
})
