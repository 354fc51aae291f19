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

/** What `followAddress` reads and listens to: `window` in the page. */
export interface AddressWindow {
  readonly location: { readonly hash: string }
  addEventListener(type: 'hashchange', listener: () => void): void
  removeEventListener(type: 'hashchange', listener: () => void): void
}

/**
 * Opens the session the address names now, and each one it names later; returns the unfollow.
 * Selecting writes the address itself (the store's `onSelect`, with `hashOf`), which fires no
 * `hashchange`; an address naming the session already open changes nothing.
 */
export function followAddress(window: AddressWindow, store: AppStore): () => void {
  const open = (): void => {
    const id = sessionOfHash(window.location.hash)
    if (id !== store.getState().selected) store.getState().select(id)
  }
  open()
  window.addEventListener('hashchange', open)
  return () => window.removeEventListener('hashchange', open)
}
