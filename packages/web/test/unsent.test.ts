import { describe, expect, it } from 'vitest'
import { unsentFor, type UnsentStorage } from '../app/state/unsent.js'
import { mapStorage } from './map-storage.js'

describe('unsent messages kept per session in the tab\'s storage', () => {
  it('keeps each session\'s sends in order with their ids, replaces an id sent again, forgets the ones taken', () => {
    const storage = mapStorage()
    const a = unsentFor('a', storage)
    a.add({ text: 'one', clientMessageId: 'id-1', delivery: 'followup' })
    a.add({ text: 'two', clientMessageId: 'id-2', delivery: 'steer' })
    a.add({ text: 'one', clientMessageId: 'id-1', delivery: 'followup' })
    expect(unsentFor('a', storage).all()).toEqual([{ text: 'two', clientMessageId: 'id-2', delivery: 'steer' }, { text: 'one', clientMessageId: 'id-1', delivery: 'followup' }])
    expect(unsentFor('b', storage).all()).toEqual([])
    a.remove('id-1', 'id-2')
    expect(storage.map.size).toBe(0)
  })

  it('a value it did not write reads as none; storage that throws leaves a page-long memory', () => {
    const storage = mapStorage()
    storage.map.set('bosun.unsent.a', '{"not":"a list"}')
    expect(unsentFor('a', storage).all()).toEqual([])
    storage.map.set('bosun.unsent.a', '[{"text":"kept","clientMessageId":"id","delivery":"steer"},{"text":3},null]')
    expect(unsentFor('a', storage).all()).toEqual([{ text: 'kept', clientMessageId: 'id', delivery: 'steer' }])
    // Written by a page that kept no delivery: read as what Enter sends.
    storage.map.set('bosun.unsent.a', '[{"text":"older","clientMessageId":"id-0"}]')
    expect(unsentFor('a', storage).all()).toEqual([{ text: 'older', clientMessageId: 'id-0', delivery: 'followup' }])
    const full: UnsentStorage = { getItem: () => { throw new Error('denied') }, setItem: () => { throw new Error('quota') }, removeItem: () => {} }
    unsentFor('c', full).add({ text: 'still here', clientMessageId: 'id-c', delivery: 'followup' })
    expect(unsentFor('c', full).all()).toEqual([{ text: 'still here', clientMessageId: 'id-c', delivery: 'followup' }])
    unsentFor('c', full).remove('id-c')
    expect(unsentFor('c', full).all()).toEqual([])
  })
})
