/**
 * How an adapter's messages name the server it sends requests to: the provider's name
 * (`Anthropic`, `OpenAI`) only when the base URL's host is that provider's own — `known` maps a
 * host to its name, a subdomain of it included — else `The server at <host>` (host and port: never
 * userinfo, the path or the query, which may carry a token). A user whose proxy or local gateway
 * refuses a key must be told which server refused it, not the provider behind it.
 *
 * @example
 * serverLabel('https://api.anthropic.com', { 'api.anthropic.com': 'Anthropic' }) // 'Anthropic'
 * serverLabel('http://127.0.0.1:4000/v1', { 'api.anthropic.com': 'Anthropic' }) // 'The server at 127.0.0.1:4000'
 */
export function serverLabel(baseURL: string | URL, known: Readonly<Record<string, string>>): string {
  const url = new URL(baseURL)
  const host = url.hostname.toLowerCase()
  for (const [name, label] of Object.entries(known)) {
    if (host === name || host.endsWith(`.${name}`)) return label
  }
  return `The server at ${url.host}`
}

/**
 * A {@link serverLabel} inside a sentence: `The server at <host>` opens a message, and reads
 * `the server at <host>` after other words ("The connection to the server at …"). A provider's name is kept.
 */
export const labelInSentence = (label: string): string => label.replace(/^The /, 'the ')
