import { storeContract } from '@bosun/core/store-contract'
import { jsonlStore } from './store.js'
import { tempDir } from './testing/recording-fs.js'

for (const journal of [false, true]) {
  storeContract(`jsonl (journal: ${journal})`, async () => {
    const { dir, cleanup } = await tempDir()
    return { store: jsonlStore({ dir, journal }), reopen: () => jsonlStore({ dir, journal }), cleanup }
  })
}
