import { createContext, useContext, type ReactNode } from 'react'
import { useStore } from 'zustand'
import type { AppActions, AppState, AppStore } from '../state/store.js'

const StoreContext = createContext<AppStore | null>(null)

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>
}

/** Reads a slice of the page's store; re-renders only when that slice changes. */
export function useApp<T>(selector: (state: AppState & AppActions) => T): T {
  const store = useContext(StoreContext)
  if (store === null) throw new Error('useApp() outside <StoreProvider>')
  return useStore(store, selector)
}
