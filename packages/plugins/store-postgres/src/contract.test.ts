import { describe } from 'vitest'
import { storeContract } from '@bosun/core/store-contract'
import { postgresStore } from './store.js'
import { available, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres', () => {
  const pg = usePostgres()
  storeContract('postgres', async () => {
    const schema = pg.schema()
    return { store: postgresStore({ url: pg.url(), schema }), reopen: () => postgresStore({ url: pg.url(), schema }) }
  })
})
