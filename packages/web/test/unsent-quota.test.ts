// Storage that reads but refuses a write (its quota full: setItem throws QuotaExceededError, the
// value written before stays) — the newest list must be what is read back, not that older value.
import { describe, expect, it } from 'vitest'
import { unsentFor, type UnsentStorage } from '../app/state/unsent.js'

/** sessionStorage over a Map whose setItem throws once `full` is set, keeping what it held. */
function fillingStorage(): UnsentStorage & { full: boolean } {
  const map = new Map<string, string>()
  const storage = {
    full: false,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => {
      if (storage.full) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      map.set(key, value)
    },
    removeItem: (key: string) => void map.delete(key),
  }
  return storage
}

describe('unsent messages when the tab\'s storage is full', () => {
  it('a send kept while storage refuses writes is read back with the ones before it, and one taken is not offered again', () => {
    const storage = fillingStorage()
    const list = unsentFor('s', storage)
    list.add({ text: 'first', clientMessageId: 'id-1', delivery: 'followup' })
    storage.full = true
    list.add({ text: 'second', clientMessageId: 'id-2', delivery: 'followup' })
    expect(unsentFor('s', storage).all()).toEqual([{ text: 'first', clientMessageId: 'id-1', delivery: 'followup' }, { text: 'second', clientMessageId: 'id-2', delivery: 'followup' }])
    list.remove('id-1')
    expect(unsentFor('s', storage).all()).toEqual([{ text: 'second', clientMessageId: 'id-2', delivery: 'followup' }])
    // Room again: written through, and read from storage as before.
    storage.full = false
    list.remove('id-2')
    expect(unsentFor('s', storage).all()).toEqual([])
    expect(storage.getItem('bosun.unsent.s')).toBeNull()
  })
})
