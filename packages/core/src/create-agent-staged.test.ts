// A new session is staged until every plugin setup passed: a refused config leaves no session in
// the store (no empty `<id>.jsonl`), an existing one is left as it was, and what a setup appends
// to a new session is its first stored events.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { types } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createAgent } from './create-agent.js'
import { BosunError, ErrorCodes } from './errors.js'
import { definePlugin, type PluginContext } from './plugin.js'
import { sealIdleSessions } from './session/sealer.js'
import { sessionLog, type Session } from './session/session.js'
import { memoryStore } from './store/memory.js'
import type { Store } from './store/types.js'

const refusing = definePlugin({
  name: 'refusing',
  setup() {
    throw new Error('no connection')
  },
})

/** Appends one of its events at setup, as a plugin recording its start would. */
const noting = definePlugin({
  name: 'noting',
  events: { 'noting/started': {} },
  setup({ session }) {
    session.append('noting/started', { at: 'setup' })
  },
})

const model = () => scripted({ responses: [{ text: 'ok' }] })

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-staged-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('createAgent on a new session', () => {
  it('leaves no session file when a plugin setup refuses (JSONL): nothing listed, the id free', async () => {
    const store = jsonlStore({ dir })
    await expect(createAgent({ model: model(), store, sessionId: 'refused', plugins: [noting, refusing] })).rejects.toSatisfy((error) =>
      BosunError.is(error, ErrorCodes.PLUGIN_SETUP_FAILED))
    expect((await readdir(dir)).filter((name) => name.startsWith('refused'))).toEqual([])
    expect(await store.list()).toEqual([])
    // The id is free: the same config, fixed, creates it.
    const agent = await createAgent({ model: model(), store, sessionId: 'refused', plugins: [noting] })
    await agent.close()
    expect((await store.list()).map((summary) => summary.id)).toEqual(['refused'])
    await store.close()
  })

  it('leaves no session in the memory store either', async () => {
    const store = memoryStore()
    await expect(createAgent({ model: model(), store, sessionId: 'refused', plugins: [refusing] })).rejects.toThrow(/refusing/)
    expect(await store.has!('refused')).toBe(false)
    expect(await store.list()).toEqual([])
  })

  it('stores what the setups appended as the first events, and what is appended while the store creates it', async () => {
    const inner = jsonlStore({ dir })
    let session: Session | undefined
    const capture = definePlugin({ name: 'capture', setup: (ctx: PluginContext) => void (session = ctx.session) })
    // An event appended while the store is creating the session (a setup's timer firing then).
    const store: Store = {
      ...inner, name: inner.name,
      create: async (header, seed) => {
        const created = await inner.create(header, seed)
        session!.append('noting/started', { at: 'during create' })
        return created
      },
      open: (id) => inner.open(id), list: () => inner.list(), close: () => inner.close(),
    }
    const agent = await createAgent({ model: model(), store, sessionId: 'noted', plugins: [noting, capture] })
    agent.followup('hi')
    await agent.whenIdle()
    await agent.close()
    const reopened = (await inner.read!('noted'))!
    expect(reopened.events.map((event) => event.type).slice(0, 3)).toEqual(['noting/started', 'noting/started', 'agent/inbox/spliced'])
    expect(reopened.events.slice(0, 2).map((event) => event.data)).toEqual([{ at: 'setup' }, { at: 'during create' }])
    expect(reopened.events.map((event) => event.seq)).toEqual(reopened.events.map((_, index) => index))
    await inner.close()
  })

  it('keeps one log for a memory session staged with events: the store takes over the session\'s log', async () => {
    const store = memoryStore()
    const agent = await createAgent({ model: model(), store, sessionId: 'noted', plugins: [noting] })
    agent.followup('hi')
    await agent.whenIdle()
    expect((await store.readEvents!('noted', 0)).map((event) => event.type)).toEqual(agent.session.events.map((event) => event.type))
    // Sealing the session's log seals the store's: it is the same log, not a second, live copy.
    await sealIdleSessions()
    expect(sessionLog(agent.session).pages.length).toBeGreaterThan(0)
    const stored = (await store.open('noted'))!
    await stored.writer.close()
    expect(types.isProxy(stored.events)).toBe(true)
    await agent.close()
  })
})

describe('createAgent on a new session another agent creates during its setup', () => {
  it('says so, not the store\'s "choose another id": created again, it resumes that session', async () => {
    // Two stores on one folder: two processes. The first agent's setup waits; the second creates the id meanwhile.
    let entered!: () => void
    const inSetup = new Promise<void>((resolve) => (entered = resolve))
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow = definePlugin({ name: 'slow', async setup() { entered(); await gate } })
    const firstStore = jsonlStore({ dir })
    const first = createAgent({ model: model(), store: firstStore, sessionId: 'raced', plugins: [slow] })
    await inSetup
    const otherStore = jsonlStore({ dir })
    const other = await createAgent({ model: model(), store: otherStore, sessionId: 'raced' })
    other.followup('hi')
    await other.whenIdle()
    await other.close()
    release()
    const error = await first.then(() => undefined, (caught: unknown) => caught)
    expect(error).toMatchObject({
      code: ErrorCodes.SESSION_EXISTS,
      message: 'Session "raced" was created by another agent while this one\'s plugins were being set up, and nothing of this one was stored: create the agent again (run the command again) to resume it.',
    })
    expect((error as Error).cause).toMatchObject({ code: ErrorCodes.SESSION_EXISTS })
    const resumed = await createAgent({ model: model(), store: firstStore, sessionId: 'raced', plugins: [slow] })
    expect(resumed.turn).toBe(1)
    await resumed.close()
    await Promise.all([firstStore.close(), otherStore.close()])
  })
})

describe('createAgent on an existing session', () => {
  it('leaves it untouched when a plugin setup refuses', async () => {
    const store = jsonlStore({ dir })
    const first = await createAgent({ model: model(), store, sessionId: 'kept' })
    first.followup('hi')
    await first.whenIdle()
    await first.close()
    const before = await readFile(join(dir, 'kept.jsonl'))
    await expect(createAgent({ model: model(), store, sessionId: 'kept', plugins: [refusing] })).rejects.toThrow(/refusing/)
    expect(await readFile(join(dir, 'kept.jsonl'))).toEqual(before)
    expect((await store.list()).map((summary) => summary.id)).toEqual(['kept'])
    // Released: it resumes.
    const resumed = await createAgent({ model: model(), store, sessionId: 'kept' })
    expect(resumed.turn).toBe(1)
    await resumed.close()
    await store.close()
  })
})
