// A child whose plugin setups refuse leaves nothing in the store: its session is staged like any
// new session (createAgent's newSession) and created only once its setups passed. The parent's
// log still says what happened (spawned, then settled as an error) and the model gets the error.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { definePlugin, type Agent, type PluginEntry } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from './index.js'
import { childIds, ofType, parent, textOf, toolResults, type Script } from '../test/harness.js'

/** Refuses to set up inside a child (as a plugin needing a sandbox a child does not get would), after noting its start there. */
const guard = definePlugin({
  name: 'guard',
  events: { 'guard/started': {} },
  setup({ session }) {
    if (!session.header.delegation) return
    session.append('guard/started', {})
    throw new Error('no sandbox for child agents')
  },
})

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-refused-child-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const sessionFiles = async () => (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).sort()

describe('a spawn whose child refuses at setup', () => {
  it.each([
    ['foreground', 'fresh'],
    ['foreground', 'fork'],
    ['background', 'fresh'],
    ['background', 'fork'],
  ] as const)('%s, %s: no child session is stored; the parent logs the spawn settled as an error and the model gets the setup\'s error', async (mode, context) => {
    const store = jsonlStore({ dir })
    const plugins: PluginEntry[] = [[subagents, {}], guard]
    let root: Agent | undefined
    const childId = () => childIds(root!.session.events)[0]!
    // Keyed by the conversation's first message: the parent's first turn, then its second ('go').
    const script: Script = {
      first: [
        { text: 'a turn to fork from' },
        { toolCalls: [{ name: 'spawn_agent', args: { task: 'check the build', mode, context } }] },
        // The model tries the child it was told failed: it took no messages, and is listed closed.
        (): ScriptedResponse => ({ toolCalls: [{ name: 'send_to_agent', args: { childId: childId(), message: 'still there?' } }, { name: 'list_agents', args: {} }] }),
        { text: 'ok' },
      ],
    }
    root = await parent({ store, script, plugins })
    root.followup('first')
    await root.whenIdle()
    root.followup('go')
    await root.whenIdle()

    const [spawned, sent, listed] = toolResults(root.session.events)
    expect(spawned!.isError).toBe(true)
    expect(textOf(spawned!.content)).toContain('Plugin "guard" failed in setup: no sandbox for child agents')
    const id = childId()
    expect(ofType(root.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId: id, epoch: 1, reason: 'error', answer: '' }])
    expect(sent!.isError).toBe(true)
    expect(textOf(sent!.content)).toContain(mode === 'background' ? 'SUBAGENT_NOT_STARTED' : 'SUBAGENT_ONE_SHOT')
    expect(JSON.parse(textOf(listed!.content))).toMatchObject({ childId: id, status: 'closed', live: false })

    // Nothing of the child in the store: no file, not listed, not there to open.
    expect(await sessionFiles()).toEqual(['root.jsonl'])
    expect((await store.list()).map((summary) => summary.id)).toEqual(['root'])
    expect(await store.has!(id)).toBe(false)
    await root.close()

    // Reopened, the parent does not adopt the child it was told failed: still nothing stored.
    const again = await parent({ store, script, plugins })
    expect(again.inbox.hasPending).toBe(false)
    await again.close()
    expect(await sessionFiles()).toEqual(['root.jsonl'])
    await store.close()
  })
})
