/**
 * Checks the shape of a connection URL before the store uses it. The mistake it is for: a password
 * with a character a URL gives a meaning to — `#`, `/`, `?` — written as it is, not
 * percent-encoded. Such a URL does not parse ("Invalid URL", with no hint at why), or worse, it
 * parses into another URL: in `postgres://bosun:p@ss#word@db:5432/app` the `#` ends the host part,
 * so the host is `ss` — part of the password — and every connection error named it
 * (`getaddrinfo ENOTFOUND ss`, and the database in the message, `postgres://ss`).
 */

const ENCODE = 'percent-encode the password (encodeURIComponent: "#" is %23, "/" is %2F, "?" is %3F, "@" is %40, "%" is %25)'

/**
 * What is wrong with `url`'s shape, as the end of a sentence that never quotes it (it may hold a
 * password), or `undefined` when it is a URL node-postgres reads as written.
 */
export function urlShapeProblem(url: string): string | undefined {
  const parsed = parseLikeNodePostgres(url)
  if (parsed === undefined) return `is not a valid URL: if the password (or the user name) holds one of # / ? @ % or a space, ${ENCODE}`
  // A PostgreSQL URL has no fragment: everything after the "#" is dropped, the database and port with it.
  if (url.includes('#')) return `holds a "#", which ends a URL: the rest of it (host, port, database) is cut off, and part of the password is read as the host; ${ENCODE}`
  // An "@" after the host part where none was read before it: a "/" or "?" in the password ended
  // that part early. (A query value may hold one, `?user=a@b`; and a database name may, after a
  // user part that was read, `postgres://u:p@host/my@db`.)
  const keys = parsed.search.slice(1).split('&').map((pair) => pair.split('=')[0] ?? '')
  if (parsed.username === '' && (parsed.pathname.includes('@') || keys.some((key) => key.includes('@')))) {
    return `has an "@" after its host: a "/" or "?" in the password ends the host part early, and part of the password is read as the host; ${ENCODE}`
  }
  return undefined
}

/**
 * The URL as node-postgres (pg-connection-string 2.x) parses it, or `undefined` when it cannot:
 * a space or a stray `%` is encoded first, and a URL without a host (`postgres://u:p@/db`, the
 * default host) is read with one.
 */
function parseLikeNodePostgres(url: string): URL | undefined {
  const encoded = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url
  for (const candidate of [encoded, encoded.replace('@/', '@localhost/')]) {
    try {
      return new URL(candidate)
    } catch {
      // try the next reading
    }
  }
  return undefined
}
