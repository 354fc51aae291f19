import { labelInSentence, serverLabel } from '@bosun/core'

/**
 * The providers' own APIs, by host (a subdomain included), named as the provider: any other host
 * is "the server at <host:port>". A provider package keeps its id (`openai.chat`,
 * `anthropic.messages`) whatever `baseURL` it was given, so only the URL says who answered.
 */
const KNOWN_HOSTS: Readonly<Record<string, string>> = {
  'api.openai.com': 'OpenAI',
  'api.anthropic.com': 'Anthropic',
  'generativelanguage.googleapis.com': 'Google',
  'api.mistral.ai': 'Mistral',
  'api.groq.com': 'Groq',
  'deepseek.com': 'DeepSeek',
  'openrouter.ai': 'OpenRouter',
  'api.x.ai': 'xAI',
}

/**
 * The server an AI SDK error came from, as a message names it inside a sentence (`the server at
 * 127.0.0.1:4000`, `Anthropic`): read from the request URL an `APICallError` carries (`url`), by
 * its host only — never the path, query or userinfo, which may hold a token. Undefined when the
 * error carries no http(s) URL (a hand-written model, an error part of the stream).
 */
export function answeringServer(error: unknown): string | undefined {
  const url = (error as { url?: unknown } | null)?.url
  if (typeof url !== 'string' || !URL.canParse(url)) return undefined
  const parsed = new URL(url)
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined
  return labelInSentence(serverLabel(parsed, KNOWN_HOSTS))
}
