import { inspect } from 'node:util'
import { maskSecretValues } from '@bosun/core'

/**
 * Writes one line to the host's log (stderr): the parts joined by spaces, an error (or any other
 * value) printed whole (stack, causes) as `console.error` would, and every registered secret masked
 * (`maskSecretValues`) — an error from a store, a plugin or a provider may quote a key or a
 * connection string's password. Every line the host logs goes through here.
 */
export function logHost(...parts: unknown[]): void {
  console.error(maskSecretValues(parts.map((part) => (typeof part === 'string' ? part : inspect(part))).join(' ')))
}
