/**
 * A real host in process for the component tests: `createHost` over the memory store, each
 * session an agent on the scripted model, and a client whose fetch calls the host's `fetch`
 * directly (no socket, same routes, same streams).
 */
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent, memoryStore, type PluginEntry } from '@bosun/core'
import { createHost, type Host } from '@bosun/host'
import { createClient, type HostClient } from '@bosun/host/client'
import contentFilter from '@bosun/plugin-content-filter'

export interface Harness { host: Host; client: HostClient; close(): Promise<void> }

/** `plugins`: more plugins for every session's agent, after the content filter (e.g. one whose hook fails). */
export function startHost(responses: () => ScriptedResponse[] = () => [], plugins: readonly PluginEntry[] = []): Harness {
  const host = createHost({
    store: memoryStore(),
    agentFactory: ({ sessionId, store }) =>
      createAgent({ model: scripted({ responses: responses() }), store, sessionId, plugins: [[contentFilter, { rules: [{ id: 'secret', keywords: ['forbidden'], action: 'reject' }] }], ...plugins] }),
    limits: { keepAliveMs: 200 },
  })
  const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })
  return { host, client, close: () => host.close() }
}

/** Polls `condition` until it holds (no fixed sleeps). */
export async function until<T>(condition: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await condition()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
