import type { MessageSource } from '@bosun/core'

/** The key of everything when counting per session. */
export const SESSION_KEY = 'session'

/** Maps a message's source to the key it is counted under. */
export type KeyOf = (source: MessageSource | undefined) => string

/**
 * The counting key. Per session, one key for everything. Per source, `<field>:<value>` when the
 * source has the field (`userId:ada`), else `kind:<kind>` (`kind:user`, `kind:tool`).
 *
 * @example
 * keyFunction('source', 'userId')({ kind: 'user', userId: 'ada' }) // 'userId:ada'
 * keyFunction('source', 'userId')({ kind: 'user' })                // 'kind:user'
 */
export function keyFunction(per: 'session' | 'source', sourceKey: string): KeyOf {
  if (per === 'session') return () => SESSION_KEY
  return (source) => {
    const value = source?.[sourceKey]
    if (value === undefined || value === null) return `kind:${source?.kind ?? 'unknown'}`
    return `${sourceKey}:${typeof value === 'string' ? value : JSON.stringify(value)}`
  }
}
