import { describe, expect, it } from 'vitest'
import { labelInSentence, serverLabel } from './server-label.js'

// Adapters name the server they contact: the provider only on its own host, else the host itself
// (a proxy's 401 is the proxy's). Never userinfo, the path or the query.

const KNOWN = { 'api.anthropic.com': 'Anthropic', 'deepseek.com': 'DeepSeek' }

describe('serverLabel', () => {
  it("the provider's name on its own host, a subdomain included, whatever the case or path", () => {
    expect(serverLabel('https://api.anthropic.com', KNOWN)).toBe('Anthropic')
    expect(serverLabel('https://API.Anthropic.com/', KNOWN)).toBe('Anthropic')
    expect(serverLabel(new URL('https://api.deepseek.com/v1'), KNOWN)).toBe('DeepSeek')
  })

  it('any other host by its host and port only: not a look-alike, no credentials, no path, no query', () => {
    expect(serverLabel('http://127.0.0.1:4000/tenant-7/v1?key=hush', KNOWN)).toBe('The server at 127.0.0.1:4000')
    expect(serverLabel('https://api.anthropic.com.evil.example', KNOWN)).toBe('The server at api.anthropic.com.evil.example')
    expect(serverLabel('https://notdeepseek.com', KNOWN)).toBe('The server at notdeepseek.com')
    expect(serverLabel('https://user:pass@gateway.example:8443/x', KNOWN)).toBe('The server at gateway.example:8443')
  })

  it('inside a sentence: "the server at …", a provider name kept', () => {
    expect(labelInSentence('The server at 127.0.0.1:4000')).toBe('the server at 127.0.0.1:4000')
    expect(labelInSentence('Anthropic')).toBe('Anthropic')
  })
})
