import { storeContract } from '@bosun/core/store-contract'
import { jsonlStore } from './store.js'
import { tempDir } from './testing/recording-fs.js'

storeContract('jsonl', async () => {
  const { dir, cleanup } = await tempDir()
  return { store: jsonlStore({ dir }), reopen: () => jsonlStore({ dir }), cleanup }
})
