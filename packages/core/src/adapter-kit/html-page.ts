import { excerpt } from './redact.js'

/**
 * What an HTML error page says, for an error message: its `<title>` (else its first `<h1>`, else
 * its visible text), as `an HTML page: "502 Bad Gateway"`; `undefined` when `body` is not an HTML
 * page. A proxy, gateway or CDN in front of the API (nginx, Cloudflare) answers errors with a page,
 * whose first characters (`<!DOCTYPE html><!--[if lt IE 7]>…`, inline styles) say nothing: quoted
 * as they are, they were all an error showed of it. `body` is masked before (the caller's rule).
 */
export function htmlPageText(body: string): string | undefined {
  if (!/^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body|title)\b/i.test(body)) return undefined
  const heading = innerText(/<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1]) || innerText(/<h1\b[^>]*>([\s\S]*?)<\/h1>/i.exec(body)?.[1])
  const said = heading || innerText(body.replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' '))
  return said ? `an HTML page: "${excerpt(said, 200)}"` : 'an HTML page with no text'
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" }

/** The text of an HTML fragment: tags and comments left out, the common entities decoded, spaces collapsed. */
function innerText(html: string | undefined): string {
  if (html === undefined) return ''
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim()
}
