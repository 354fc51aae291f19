import { excerpt } from './redact.js'

/**
 * How much of a page is read for its words. An error page says what it has to say in its first
 * kilobytes; a body may be up to a megabyte, and this runs on the event loop.
 */
const READ_AT_MOST = 64 * 1024

/**
 * What an HTML error page says, for an error message: its `<title>` (else its first `<h1>`, else
 * its visible text), as `an HTML page: "502 Bad Gateway"`; `undefined` when `body` is not an HTML
 * page. A proxy, gateway or CDN in front of the API (nginx, Cloudflare) answers errors with a page,
 * whose first characters (`<!DOCTYPE html><!--[if lt IE 7]>…`, inline styles) say nothing: quoted
 * as they are, they were all an error showed of it. `body` is masked before (the caller's rule).
 *
 * Every scan here is linear (`indexOf` from where the last one stopped, no backtracking regular
 * expression over the body): the body is whatever a server at `baseURL` sent, and a page of
 * unclosed comments or tags must not hold the event loop (a lazy `[\s\S]*?` inside a repeated
 * group, or one tried from every `<`, takes seconds to minutes on such a body).
 */
export function htmlPageText(body: string): string | undefined {
  const page = body.length > READ_AT_MOST ? body.slice(0, READ_AT_MOST) : body
  // ASCII letters only: a full toLowerCase may change the length ('İ' becomes two code units), and
  // the indices found in `lower` are used in `page`.
  const lower = page.replace(/[A-Z]+/g, (letters) => letters.toLowerCase())
  if (!startsAsHtml(lower)) return undefined
  const heading = innerText(elementText(page, lower, 'title')) || innerText(elementText(page, lower, 'h1'))
  const said = heading || innerText(withoutElements(page, lower, ['script', 'style', 'head']))
  return said ? `an HTML page: "${excerpt(said, 200)}"` : 'an HTML page with no text'
}

/** Whether the page starts, after blanks and comments, with a doctype or one of the outer tags. */
function startsAsHtml(lower: string): boolean {
  let at = skipBlanks(lower, 0)
  while (lower.startsWith('<!--', at)) {
    const end = lower.indexOf('-->', at + 4)
    if (end === -1) return false
    at = skipBlanks(lower, end + 3)
  }
  return /^<(!doctype\s+html|html|head|body|title)\b/.test(lower.slice(at, at + 16))
}

function skipBlanks(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++
  return at
}

/** Where the opening tag `<name …>` starting at or after `from` ends (the index after its `>`), and where it starts; undefined for none. */
function openingTag(lower: string, name: string, from: number): { start: number; end: number } | undefined {
  let at = from
  for (;;) {
    const start = lower.indexOf(`<${name}`, at)
    if (start === -1) return undefined
    const next = lower[start + name.length + 1]
    // `<title>` or `<title lang=…>`, not `<titles>`.
    if (next === undefined || next === '>' || next === '/' || /\s/.test(next)) {
      const end = lower.indexOf('>', start)
      return end === -1 ? undefined : { start, end: end + 1 }
    }
    at = start + 1
  }
}

/** The markup inside the first `<name>…</name>` of the page, or undefined. */
function elementText(page: string, lower: string, name: string): string | undefined {
  const open = openingTag(lower, name, 0)
  if (open === undefined) return undefined
  const close = lower.indexOf(`</${name}`, open.end)
  return close === -1 ? undefined : page.slice(open.end, close)
}

/** The page with each `<name …>…</name>` of these elements replaced by a space (an unclosed one: to the end). */
function withoutElements(page: string, lower: string, names: readonly string[]): string {
  // Each name's next opening tag, searched again only once the scan has passed it: a name that
  // does not occur is searched for once, not once per element removed.
  const next = new Map<string, { start: number; end: number } | undefined>()
  let out = ''
  let at = 0
  for (;;) {
    let first: { start: number; end: number; name: string } | undefined
    for (const name of names) {
      let open = next.get(name)
      if (!next.has(name) || (open !== undefined && open.start < at)) next.set(name, (open = openingTag(lower, name, at)))
      if (open !== undefined && (first === undefined || open.start < first.start)) first = { ...open, name }
    }
    if (first === undefined) return out + page.slice(at)
    out += `${page.slice(at, first.start)} `
    const close = lower.indexOf(`</${first.name}`, first.end)
    if (close === -1) {
      // HTML lets a page leave `</head>` out (and the read may stop inside a long head): the body
      // still starts at `<body`. A script or style left open runs to the end.
      const body = first.name === 'head' ? openingTag(lower, 'body', first.end) : undefined
      if (body === undefined) return out
      at = body.start
      continue
    }
    const end = lower.indexOf('>', close)
    if (end === -1) return out
    at = end + 1
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" }

/** The text of an HTML fragment: comments and tags left out, the common entities decoded, spaces collapsed. */
function innerText(html: string | undefined): string {
  if (html === undefined) return ''
  return withoutComments(html)
    // `[^<>]`: a `<` with no `>` after it is text, and is not tried again from every later `<`.
    .replace(/<[^<>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim()
}

/** `html` with each `<!-- … -->` replaced by a space (an unclosed one: to the end). */
function withoutComments(html: string): string {
  let out = ''
  let at = 0
  for (;;) {
    const start = html.indexOf('<!--', at)
    if (start === -1) return out + html.slice(at)
    out += `${html.slice(at, start)} `
    const end = html.indexOf('-->', start + 4)
    if (end === -1) return out
    at = end + 3
  }
}
