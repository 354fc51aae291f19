import { storeContract } from '@bosun/core/store-contract'
import { sqliteStore } from './store.js'
import { tempDatabase } from './testing/temp.js'

storeContract('sqlite', async () => {
  const { file, cleanup } = await tempDatabase()
  return { store: sqliteStore({ file }), reopen: () => sqliteStore({ file }), cleanup }
})
