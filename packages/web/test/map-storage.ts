import type { TabStorage } from '../app/state/tab-storage.js'

/** A Storage over a Map, as the page's sessionStorage behaves. */
export function mapStorage(): TabStorage & { map: Map<string, string> } {
  const map = new Map<string, string>()
  return { map, getItem: (key) => map.get(key) ?? null, setItem: (key, value) => void map.set(key, value), removeItem: (key) => void map.delete(key) }
}
