// Test-only: 413 bodies as servers send them, for the adapters' tests of the kit's 413 rule.

/**
 * Groq's 413 when one request's tokens (prompt and max output tokens) exceed the whole
 * tokens-per-minute limit (its `code` says rate limit, but no wait lets it through: Requested > Limit).
 */
export const GROQ_TPM = JSON.stringify({
  error: {
    message: 'Request too large for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Requested 18657, please reduce your message size and try again.',
    type: 'tokens',
    code: 'rate_limit_exceeded',
  },
})
/** A 413 in rate-limit words without counts saying the request alone is over the limit: waiting cures it. */
export const RATE_LIMIT_413 = JSON.stringify({
  error: { message: 'Rate limit reached for model `llama-3.3-70b-versatile` on tokens per minute (TPM): please try again in 7.5s.', type: 'tokens', code: 'rate_limit_exceeded' },
})
export const NGINX_413 = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'
