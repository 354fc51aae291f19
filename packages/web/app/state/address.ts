/**
 * The open session in the page's address (`#/s/<id>`): a reload, a link or a bookmark opens that
 * session, and so does a change of the address while the page is open (a link followed, the
 * address bar edited, Back and Forward).
 */
import type { AppStore } from './store.js'

/** The address of a session (or of none). */
export function hashOf(id: string | null): string {
  return id === null ? '' : `#/s/${encodeURIComponent(id)}`
}

/** The session an address names, or null: none, or an escape that does not decode (`#/s/%E0`, typed by hand). */
export function sessionOfHash(hash: string): string | null {
  const escaped = /^#\/s\/(.+)$/.exec(hash)?.[1]
  if (escaped === undefined) return null
  try {
    return decodeURIComponent(escaped)
  } catch {
    return null
  }
}

/**
 * The page's own address for a session (or for none: the page without a hash), as `history` takes
 * it. The path and query stay as they are: a proxy in front of the host may route by either.
 */
export function addressOf(id: string | null, location: { readonly pathname: string; readonly search: string }): string {
  const hash = hashOf(id)
  return hash === '' ? `${location.pathname}${location.search}` : hash
}

/** What `followAddress` reads, writes and listens to: `window` in the page. */
export interface AddressWindow {
  readonly location: { readonly hash: string; readonly pathname: string; readonly search: string }
  readonly history: { replaceState(data: unknown, unused: string, url: string): void }
  addEventListener(type: 'hashchange', listener: () => void): void
  removeEventListener(type: 'hashchange', listener: () => void): void
}

/**
 * Opens the session the address names now, and each one it names later; returns the unfollow.
 * Selecting writes the address itself (the store's `onSelect`, with `hashOf`), which fires no
 * `hashchange`; an address naming the session already open changes nothing.
 *
 * An address spelled otherwise than the page's own (`#/s/a%2Db` for `a-b`, an escape that does
 * not decode) is replaced by the page's own first, in place: it is the step the user took, so
 * `onSelect` must find the address already written and push nothing — a second entry for the same
 * session made Back go nowhere visible.
 */
export function followAddress(window: AddressWindow, store: AppStore): () => void {
  const open = (): void => {
    const id = sessionOfHash(window.location.hash)
    if (window.location.hash !== hashOf(id)) window.history.replaceState(null, '', addressOf(id, window.location))
    if (id !== store.getState().selected) store.getState().select(id)
  }
  open()
  window.addEventListener('hashchange', open)
  return () => window.removeEventListener('hashchange', open)
}
