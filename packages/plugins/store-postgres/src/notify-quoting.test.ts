// Security review: a mailbox NOTIFY is sent as SQL text with the message id in a string literal
// (the simple query protocol takes no parameters). Quotes were doubled, which is a literal only
// while the server's standard_conforming_strings is on: with it off (a server, database or role
// setting) a plain '…' reads \' as a quote, so a message id with a backslash and a quote ended
// the literal and ran its own SQL. The store's connection here has the setting off.
import { describe, expect, it } from 'vitest'
import { postgresStore } from './store.js'
import { available, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — a NOTIFY payload is a literal whatever standard_conforming_strings is', () => {
  const pg = usePostgres()

  it('a message id with backslashes and quotes arrives whole, and runs nothing', async () => {
    const schema = pg.schema()
    const url = new URL(pg.url())
    url.searchParams.set('options', '-c standard_conforming_strings=off')
    const store = postgresStore({ url: url.href, schema, owner: 'host-a' })
    const watcherStore = postgresStore({ url: pg.url(), schema, owner: 'host-b' })
    await store.create(header('s'))
    // The admin connection has it on; the store's own connections have it off.
    expect(await pg.sql("SELECT current_setting('standard_conforming_strings') AS setting")).toEqual([{ setting: 'on' }])
    await pg.sql(`CREATE TABLE "${schema}".canary (n integer)`)

    const watcher = watcherStore.watch({ pollIntervalMs: 60_000 })
    const mail: string[] = []
    // A poll finding pending mail names no id: only what NOTIFY carried is kept.
    watcher.onMailbox((_, id) => id !== undefined && mail.push(id))
    await watcher.whenListening()

    const hostile = `m\\'); DROP TABLE "${schema}".canary; COMMIT; --`
    const plain = 'm-after'
    await store.mailbox.post('s', { messageId: hostile, body: 'hi' })
    await store.mailbox.post('s', { messageId: plain, body: 'hi' })
    await until(() => mail.includes(plain), 'the NOTIFY of the second post')
    expect(mail).toEqual([hostile, plain])
    expect(await pg.sql(`SELECT to_regclass('"${schema}".canary') IS NOT NULL AS present`)).toEqual([{ present: true }])
    await Promise.all([watcher.close(), store.close(), watcherStore.close()])
  })
})
