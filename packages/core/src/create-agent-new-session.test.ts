// createAgent's newSession (a subagent's child: a delegation header, a fork's seed) is staged like
// any new session: built in memory for the setups to read, created in the store only once every
// setup passed — a refused setup leaves no session, a passed one stores the seed then its events.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createAgent } from './create-agent.js'
import { BosunError, ErrorCodes } from './errors.js'
import { definePlugin } from './plugin.js'
import { LOG_FORMAT_VERSION, type SessionHeader } from './session/events.js'
import { forkSeed } from './store/fork.js'

const delegation = { parentSessionId: 'lead', callId: 'call_1', depth: 1, mode: 'continuable' } as const
const childHeader: SessionHeader = { id: 'child', version: LOG_FORMAT_VERSION, createdAt: 5, delegation }

/** Notes at setup what it read of the session: the header, and the events before its own. */
const seen: { delegation?: unknown; events: number }[] = []
const reading = definePlugin({
  name: 'reading',
  events: { 'reading/started': {} },
  setup({ session }) {
    seen.push({ delegation: session.header.delegation, events: session.events.length })
    session.append('reading/started', {})
  },
})
const refusing = definePlugin({
  name: 'refusing',
  setup() {
    throw new Error('no sandbox')
  },
})

const model = () => scripted({ responses: [{ text: 'ok' }] })

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-new-session-'))
  seen.length = 0
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('createAgent with newSession', () => {
  it('creates nothing when a setup refuses: no file, nothing listed, the id free (JSONL)', async () => {
    const store = jsonlStore({ dir })
    const building = createAgent({ model: model(), store, sessionId: 'child', plugins: [reading, refusing], newSession: async () => ({ header: childHeader }) })
    await expect(building).rejects.toSatisfy((error) => BosunError.is(error, ErrorCodes.PLUGIN_SETUP_FAILED))
    // The setups read the described header although nothing was stored.
    expect(seen).toEqual([{ delegation, events: 0 }])
    expect(await readdir(dir)).toEqual([])
    expect(await store.list()).toEqual([])
    const agent = await createAgent({ model: model(), store, sessionId: 'child', plugins: [reading], newSession: async () => ({ header: childHeader }) })
    await agent.close()
    expect((await store.list()).map((summary) => [summary.id, summary.delegation])).toEqual([['child', delegation]])
    await store.close()
  })

  it("a fork's seed: the setups read it, and the store gets the header, the seed, then what the setups appended", async () => {
    const store = jsonlStore({ dir })
    const lead = await createAgent({ model: model(), store, sessionId: 'lead' })
    lead.followup('hi')
    await lead.whenIdle()
    await lead.close()
    const newSession = () => forkSeed(store, 'lead', { id: 'child', delegation, now: () => 7 })
    await expect(createAgent({ model: model(), store, sessionId: 'child', plugins: [reading, refusing], newSession })).rejects.toThrow(/no sandbox/)
    expect((await store.list()).map((summary) => summary.id)).toEqual(['lead'])

    const { seed } = await newSession()
    const agent = await createAgent({ model: model(), store, sessionId: 'child', plugins: [reading], newSession })
    await agent.close()
    expect(seen.at(-1)).toEqual({ delegation, events: seed.length })
    const stored = (await store.read!('child'))!
    expect(stored.header).toEqual({ id: 'child', version: LOG_FORMAT_VERSION, createdAt: 7, parent: 'lead', seedLength: seed.length, delegation })
    expect(stored.events.map((event) => event.type)).toEqual([...seed.map((event) => event.type), 'reading/started'])
    expect(stored.events.map((event) => event.seq)).toEqual(stored.events.map((_, index) => index))
    await store.close()
  })
})
