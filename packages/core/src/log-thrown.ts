import { inspect } from 'node:util'
import { maskSecretValues } from './config/secret-values.js'

/**
 * `[bosun] <context> threw: …` on stderr — a contained failure no `agent/error` tap took — with
 * each error printed as `console.error` would (stack, causes, fields), every registered secret
 * masked: a plugin's error may quote a key, and this is a log.
 */
export function logThrown(context: string, ...errors: unknown[]): void {
  console.error(`[bosun] ${context} threw:`, ...errors.map((error) => maskSecretValues(inspect(error))))
}
