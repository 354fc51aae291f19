// createAgent({ signal }): a plugin setup that never settles (a server that never answers) must
// not hold the session — the JSONL lock — until the process exits. An abort rejects at once with
// OPEN_ABORTED, runs the teardowns of the setups that finished, releases the session, and whatever
// the hung setup does when it settles after all is harmless.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createAgent } from './create-agent.js'
import { BosunError, ErrorCodes } from './errors.js'
import { definePlugin, type PluginContext } from './plugin.js'
import { memoryStore } from './store/memory.js'
import type { Store, StoredSession } from './store/types.js'

const model = () => scripted({ responses: [{ text: 'ok' }] })

/** A plugin whose setup waits for `settle()` — never, unless the test calls it — and then `after(ctx)`. */
function hanging(after: (ctx: PluginContext) => void = () => {}) {
  let settle!: () => void
  const settled = new Promise<void>((resolve) => { settle = resolve })
  const state = { started: false, ctx: undefined as PluginContext | undefined, done: false, thrown: undefined as unknown }
  const plugin = definePlugin({
    name: 'hanging',
    async setup(ctx) {
      state.started = true
      state.ctx = ctx
      await settled
      try {
        after(ctx)
      } catch (error) {
        state.thrown = error
      }
      state.done = true
    },
  })
  return { plugin, state, settle }
}

/** A plugin that registers a teardown, and says whether it ran. */
function tidy() {
  const state = { tornDown: 0 }
  const plugin = definePlugin({ name: 'tidy', setup: ({ onClose }) => onClose(() => { state.tornDown++ }) })
  return { plugin, state }
}

const isAborted = (error: unknown) => BosunError.is(error, ErrorCodes.OPEN_ABORTED)

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-open-abort-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function storedSession(id: string): Promise<void> {
  const store = jsonlStore({ dir })
  await (await createAgent({ model: model(), store, sessionId: id })).close()
  await store.close()
}

/** How many events the store holds for `id` (opened and let go: the memory store has no `read`). */
async function storedLength(store: Store, id: string): Promise<number> {
  const opened = (await store.open(id))!
  await opened.writer.close()
  return opened.events.length
}

describe('createAgent({ signal })', () => {
  it('rejects at once when aborted during a setup that never settles, tears down the finished setups and releases the JSONL session', async () => {
    await storedSession('s')
    const store = jsonlStore({ dir })
    const hung = hanging()
    const done = tidy()
    const controller = new AbortController()
    const creating = createAgent({ model: model(), store, sessionId: 's', plugins: [done.plugin, hung.plugin], signal: controller.signal })
    creating.catch(() => {})
    await vi.waitFor(() => expect(hung.state.started).toBe(true), { timeout: 30_000 })
    expect(hung.state.ctx?.signal.aborted).toBe(false)

    controller.abort()
    const error = await creating.then(() => undefined, (thrown: unknown) => thrown)
    expect(isAborted(error)).toBe(true)
    expect((error as BosunError).details).toEqual({ sessionId: 's', during: 'setup', plugin: 'hanging' })
    expect((error as BosunError).message).toContain('during the setup of plugin "hanging"')
    expect(done.state.tornDown).toBe(1)
    expect(hung.state.ctx?.signal.aborted).toBe(true)

    // Released: another store on the same folder (another process, another host) opens it, and so
    // does this one — the in-process mark is gone too.
    const elsewhere = jsonlStore({ dir })
    const other = await createAgent({ model: model(), store: elsewhere, sessionId: 's' })
    await other.close()
    const again = await createAgent({ model: model(), store, sessionId: 's' })
    await again.close()
    await Promise.all([store.close(), elsewhere.close()])
  })

  it('keeps what the hung setup does once it settles harmless: no append stored, its late teardown run, no later setup', async () => {
    await storedSession('late')
    const store = jsonlStore({ dir })
    let lateTeardowns = 0
    const hung = hanging((ctx) => {
      ctx.onClose(() => { lateTeardowns++ })
      ctx.session.append('hanging/connected', {})
    })
    let laterSetups = 0
    const later = definePlugin({ name: 'later', setup: () => { laterSetups++ } })
    const controller = new AbortController()
    const creating = createAgent({ model: model(), store, sessionId: 'late', plugins: [hung.plugin, later], signal: controller.signal })
    await vi.waitFor(() => expect(hung.state.started).toBe(true), { timeout: 30_000 })
    controller.abort()
    await expect(creating).rejects.toSatisfy(isAborted)

    // Opened again meanwhile: the late setup must not write into this agent's log either.
    const reopened = await createAgent({ model: model(), store, sessionId: 'late' })
    const length = reopened.session.length
    hung.settle()
    await vi.waitFor(() => expect(hung.state.done).toBe(true), { timeout: 30_000 })
    expect(lateTeardowns).toBe(1)
    expect(BosunError.is(hung.state.thrown)).toBe(true) // the closed session refused the append
    expect(laterSetups).toBe(0)
    expect(reopened.session.length).toBe(length)
    await reopened.close()
    const read = await store.read!('late')
    expect(read?.events.some((event) => event.type === 'hanging/connected')).toBe(false)
    await store.close()
  })

  it('refuses the late append on the memory store too, whose writer takes appends after its close', async () => {
    const store = memoryStore()
    await (await createAgent({ model: model(), store, sessionId: 'mem' })).close()
    const length = await storedLength(store, 'mem')
    const hung = hanging((ctx) => ctx.session.append('hanging/connected', {}))
    const controller = new AbortController()
    const creating = createAgent({ model: model(), store, sessionId: 'mem', plugins: [hung.plugin], signal: controller.signal })
    await vi.waitFor(() => expect(hung.state.started).toBe(true), { timeout: 30_000 })
    controller.abort()
    await expect(creating).rejects.toSatisfy(isAborted)
    hung.settle()
    await vi.waitFor(() => expect(hung.state.done).toBe(true), { timeout: 30_000 })
    expect(BosunError.is(hung.state.thrown, ErrorCodes.AGENT_CLOSED)).toBe(true)
    expect(await storedLength(store, 'mem')).toBe(length)
  })

  it('leaves no session behind for a new id, even once the hung setup settles', async () => {
    const store = jsonlStore({ dir })
    const hung = hanging()
    const controller = new AbortController()
    const creating = createAgent({ model: model(), store, sessionId: 'fresh', plugins: [hung.plugin], signal: controller.signal })
    await vi.waitFor(() => expect(hung.state.started).toBe(true), { timeout: 30_000 })
    controller.abort(new Error('open timed out'))
    const error = await creating.then(() => undefined, (thrown: unknown) => thrown)
    expect(isAborted(error)).toBe(true)
    expect((error as Error).cause).toEqual(new Error('open timed out'))
    hung.settle()
    await vi.waitFor(() => expect(hung.state.done).toBe(true), { timeout: 30_000 })
    expect(await store.has!('fresh')).toBe(false)
    expect((await readdir(dir)).filter((name) => name.startsWith('fresh'))).toEqual([])
    await store.close()
  })

  it('closes a session the store opens after the abort (a store that does not answer in time)', async () => {
    const base = memoryStore()
    await (await createAgent({ model: model(), store: base, sessionId: 'slow' })).close()
    let answer!: () => void
    const answered = new Promise<void>((resolve) => { answer = resolve })
    let asked = false
    let closedLate = false
    const slow: Store = {
      ...base,
      async open(id) {
        asked = true
        await answered
        const opened = (await base.open(id)) as StoredSession
        const close = opened.writer.close.bind(opened.writer)
        return { ...opened, writer: Object.assign(Object.create(opened.writer) as object, { close: async () => { closedLate = true; await close() } }) as StoredSession['writer'] }
      },
    }
    const controller = new AbortController()
    const creating = createAgent({ model: model(), store: slow, sessionId: 'slow', signal: controller.signal })
    await vi.waitFor(() => expect(asked).toBe(true), { timeout: 30_000 })
    controller.abort()
    await expect(creating).rejects.toSatisfy((error) => isAborted(error) && (error as BosunError).details.during === 'store-open')
    answer()
    await vi.waitFor(() => expect(closedLate).toBe(true), { timeout: 30_000 })
  })

  it('gives up an afterSetup check that never settles, naming its plugin, and creates no new session', async () => {
    const store = jsonlStore({ dir })
    let checking = false
    const checker = definePlugin({
      name: 'checker',
      setup: ({ afterSetup }) => afterSetup(async () => {
        checking = true
        await new Promise<never>(() => {})
      }),
    })
    const done = tidy()
    const controller = new AbortController()
    const creating = createAgent({ model: model(), store, sessionId: 'checked', plugins: [done.plugin, checker], signal: controller.signal })
    await vi.waitFor(() => expect(checking).toBe(true), { timeout: 30_000 })
    controller.abort()
    const error = await creating.then(() => undefined, (thrown: unknown) => thrown)
    expect((error as BosunError).details).toEqual({ sessionId: 'checked', during: 'after-setup', plugin: 'checker' })
    expect(done.state.tornDown).toBe(1)
    expect(await store.has!('checked')).toBe(false)
    await store.close()
  })

  it('refuses a signal that has aborted already, before the store is touched', async () => {
    let opened = 0
    const base = memoryStore()
    const store: Store = { ...base, open: async (id) => { opened++; return base.open(id) } }
    const setups = tidy()
    await expect(createAgent({ model: model(), store, plugins: [setups.plugin], signal: AbortSignal.abort() })).rejects.toSatisfy(isAborted)
    expect(opened).toBe(0)
    expect(setups.state.tornDown).toBe(0)
  })

  it('gives plugins a signal that never aborts once the agent is built, and checks the option', async () => {
    let seen: AbortSignal | undefined
    const watching = definePlugin({ name: 'watching', setup: ({ signal }) => { seen = signal } })
    const controller = new AbortController()
    const agent = await createAgent({ model: model(), plugins: [watching], signal: controller.signal })
    controller.abort()
    expect(seen?.aborted).toBe(false)
    await agent.close()
    // Without the option too: a signal that never aborts.
    await (await createAgent({ model: model(), plugins: [watching] })).close()
    expect(seen?.aborted).toBe(false)
    await expect(createAgent({ model: model(), signal: 'soon' as never })).rejects.toSatisfy((error) => BosunError.is(error, ErrorCodes.INVALID_ARGUMENT))
  })
})
