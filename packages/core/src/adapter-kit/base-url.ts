import { looksLikeCredential } from '../config/credentials.js'

/**
 * A base URL as an adapter shows it — in an error, or as a public property a caller may log:
 * origin and path without a trailing `/`, never userinfo or a fragment. The query is kept for the
 * requests themselves (an Azure-style `?api-version=…`, a proxy that takes its key as `?key=…`),
 * so it is either left out (`query: 'omit'`, for errors) or shown with every value replaced by
 * `[redacted]` (`query: 'redact'`): `https://proxy.example/v1?api-version=[redacted]&key=[redacted]`.
 * A name that is not a plain word or looks like a credential (the key itself, `?sk-…`) is redacted whole.
 */
export function shownBaseURL(url: string | URL, query: 'omit' | 'redact' = 'omit'): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'the configured baseURL'
  }
  const base = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`
  if (query === 'omit' || parsed.search === '') return base
  const params = [...parsed.searchParams].map(([name, value]) =>
    !/^[A-Za-z][\w.-]{0,39}$/.test(name) || looksLikeCredential(name) ? '[redacted]' : value === '' ? name : `${name}=[redacted]`)
  return `${base}?${params.join('&')}`
}
