/**
 * What the reader opened or closed in the timeline — a collapsed step, an opened reasoning, a
 * result shown whole — kept outside the rows. The timeline is virtualised: a row scrolled out of
 * view is unmounted, and state held in its components would be lost, so a step collapsed far up
 * would be open again when scrolled back to. Kept per session, keyed by turn, step and part.
 */
import { createContext, useCallback, useContext, useSyncExternalStore } from 'react'

export interface Disclosure {
  /** Whether `key` is open; `fallback` until the reader toggled it. */
  isOpen(key: string, fallback: boolean): boolean
  set(key: string, open: boolean): void
  subscribe(listener: () => void): () => void
}

export function createDisclosure(): Disclosure {
  const opened = new Map<string, boolean>()
  const listeners = new Set<() => void>()
  return {
    isOpen: (key, fallback) => opened.get(key) ?? fallback,
    set(key, open) {
      if (opened.get(key) === open) return
      opened.set(key, open)
      for (const listener of listeners) listener()
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/** The keys of the parts a reader can open or close. */
export const disclosureKey = {
  step: (turn: number, step: number): string => `step:${turn}:${step}`,
  reasoning: (turn: number, step: number, part: number): string => `reasoning:${turn}:${step}:${part}`,
  result: (turn: number, step: number, call: string | number): string => `result:${turn}:${step}:${call}`,
}

/** The timeline provides its session's; a part rendered on its own (a test) gets one of its own. */
export const DisclosureContext = createContext<Disclosure>(createDisclosure())

/** Whether the part `key` is open (`fallback` until the reader toggles it), and its setter. */
export function useDisclosure(key: string, fallback: boolean): [boolean, (open: boolean) => void] {
  const disclosure = useContext(DisclosureContext)
  const open = useSyncExternalStore(disclosure.subscribe, () => disclosure.isOpen(key, fallback))
  const set = useCallback((next: boolean) => disclosure.set(key, next), [disclosure, key])
  return [open, set]
}
