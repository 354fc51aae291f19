import { afterEach, expect } from 'vitest'
import { storeContract } from '@bosun/core/store-contract'
import { jsonlStore } from './store.js'
import { tempDir } from './testing/recording-fs.js'
import { handleTrackingFs, type HandleTrackingFs } from './testing/handle-tracking-fs.js'

/** The file system of the test running now: every handle it opened is closed once the test is over. */
let fs: HandleTrackingFs | undefined

afterEach(() => {
  const left = fs?.openPaths() ?? []
  fs = undefined
  // A handle left open is closed by the garbage collector, with a warning (DEP0137).
  expect(left).toEqual([])
})

for (const journal of [false, true]) {
  storeContract(`jsonl (journal: ${journal})`, async () => {
    const { dir, cleanup } = await tempDir()
    const tracking = (fs = handleTrackingFs())
    return { store: jsonlStore({ dir, journal, fs: tracking }), reopen: () => jsonlStore({ dir, journal, fs: tracking }), cleanup }
  })
}
