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

// A page is whatever a server at `baseURL` sent, read on the event loop: a body of unclosed
// comments, tags or elements must be read in time linear in its size (review R1: a lazy match in
// a repeated group doubled the time with each comment — 2 s at 27, minutes at 40 — and a tag
// pattern tried from every `<` took 15 s at 160 KB). These would hang the test, not fail it.
describe('a hostile or broken page is read in linear time', () => {
  it('many comments before a page that is not HTML', () => {
    expect(providerMessage(`${'<!-- x -->\n'.repeat(60)}<div>not a page</div>`)).not.toMatch(/^an HTML page/)
  })

  it('a megabyte of unclosed tags, comments and elements after an HTML start', () => {
    const mb = 1 << 20
    expect(providerMessage(`<html>${'<'.repeat(mb)}`)).toMatch(/^an HTML page/)
    expect(providerMessage(`<html><body>${'<!--'.repeat(mb / 4)}`)).toBe('an HTML page with no text')
    expect(providerMessage(`<html>${'<title'.repeat(mb / 6)}`)).toMatch(/^an HTML page/)
    expect(providerMessage(`<html>${'<script>x</script>'.repeat(mb / 18)}<style>${'<h1'.repeat(mb / 3)}`)).toBe('an HTML page with no text')
  })

  it('text around letters whose lower case is longer keeps its place (İ)', () => {
    expect(providerMessage('<html><body>İİİ<p>İstanbul</p><script>x</script>down</body></html>')).toBe('an HTML page: "İİİ İstanbul down"')
    expect(providerMessage('<HTML><HEAD><TITLE>İ 503 Service Unavailable</TITLE></HEAD></HTML>')).toBe('an HTML page: "İ 503 Service Unavailable"')
  })

  it('a head left open (HTML allows it, or cut by the 64 KB read) ends at <body> (review R2)', () => {
    expect(providerMessage('<html><head><meta charset=utf-8><body><p>Service unavailable, try later</p></body></html>')).toBe('an HTML page: "Service unavailable, try later"')
    expect(providerMessage(`<html><head><style>${'p{}'.repeat(30_000)}</style></head><body>Overloaded</body></html>`)).toBe('an HTML page with no text')
    expect(providerMessage(`<html><head><meta charset=utf-8>${'<meta name=x>'.repeat(10)}<body>Overloaded</body>`)).toBe('an HTML page: "Overloaded"')
  })
})
