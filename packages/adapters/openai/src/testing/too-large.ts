// Test-only: 413 bodies as servers send them, for the adapters' tests of the kit's 413 rule.

/** Groq's 413 when a request's tokens exceed the tokens-per-minute limit (its `code` says so). */
export const GROQ_TPM = JSON.stringify({
  error: {
    message: 'Request too large for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Requested 18657, please reduce your message size and try again.',
    type: 'tokens',
    code: 'rate_limit_exceeded',
  },
})
export const NGINX_413 = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'
