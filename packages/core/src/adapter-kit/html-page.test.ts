import { describe, expect, it } from 'vitest'
import { modelErrorFromResponse, providerMessage } from './http-error.js'

// Found walking a provider swap against a local server: a proxy's or CDN's HTML error page was
// quoted as its first 300 characters of markup (`<html><head><title>502 Bad Gateway</title></head>
// <body><center><h1>…`; a Cloudflare page is all doctype, IE comments and inline styles there).

/** Cloudflare's shape: comments and conditionals first, a title naming the host and the error, styles. */
const CLOUDFLARE_502 = `<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<!--[if gt IE 8]><!--> <html class="no-js" lang="en-US"> <!--<![endif]-->
<head>
<title>api.example.com | 502: Bad gateway</title>
<meta charset="UTF-8" /><style>${'body{margin:0;padding:0}'.repeat(40)}</style>
</head><body><div id="cf-wrapper"><h1>Bad gateway <span>Error code 502</span></h1></div></body></html>`
const NGINX_502 = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'

describe('an HTML error page is quoted by what it says', () => {
  it("nginx: its title, not its markup", () => {
    expect(providerMessage(NGINX_502)).toBe('an HTML page: "502 Bad Gateway"')
    const error = modelErrorFromResponse('The server at proxy:8080', 502, new Headers(), NGINX_502)
    expect(error).toMatchObject({ code: 'SERVER', status: 502, retryable: true })
    expect(error.message).toBe('The server at proxy:8080 answered HTTP 502: an HTML page: "502 Bad Gateway"')
  })

  it('Cloudflare: the title past the comments and conditionals, no style', () => {
    expect(providerMessage(CLOUDFLARE_502)).toBe('an HTML page: "api.example.com | 502: Bad gateway"')
  })

  it('without a title: the first heading, else the visible text (no script or style), entities decoded', () => {
    expect(providerMessage('<!doctype html><html><body><h1>Service &amp; API down</h1><p>later</p></body></html>')).toBe('an HTML page: "Service & API down"')
    expect(providerMessage('<html><style>p{}</style><script>var x = 1</script>Service Unavailable</html>')).toBe('an HTML page: "Service Unavailable"')
    expect(providerMessage('<html><body></body></html>')).toBe('an HTML page with no text')
  })

  it('anything else as before: JSON by its message, plain text as an excerpt, text that only holds a tag', () => {
    expect(providerMessage('{"error":{"message":"boom"}}')).toBe('boom')
    expect(providerMessage('Bad Gateway')).toBe('Bad Gateway')
    expect(providerMessage('upstream said <b>no</b>')).toBe('upstream said <b>no</b>')
  })

  it('a 413 page keeps its words for the type, and the message its title', () => {
    const error = modelErrorFromResponse('The server at proxy:8080', 413, new Headers(), '<html><head><title>413 Request Entity Too Large</title></head></html>')
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(error.message).toMatch(/^The server at proxy:8080 answered HTTP 413: an HTML page: "413 Request Entity Too Large" \(the request has more bytes/)
  })
})
