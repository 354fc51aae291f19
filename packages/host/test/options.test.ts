import { describe, expect, it } from 'vitest'
import { BosunError, memoryStore } from '@bosun/core'
import { createHost } from '../src/index.js'

const agentFactory = async () => { throw new Error('not used') }

function refusal(options: unknown): string {
  try {
    createHost(options as never)
  } catch (error) {
    expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
    return (error as Error).message
  }
  throw new Error('createHost accepted the options')
}

describe('createHost options', () => {
  it('are checked by one schema through the core\'s options formatter, each problem named by its path', async () => {
    const store = memoryStore()
    const line = (options: unknown) => refusal(options).replace(/^Invalid options for createHost\(\):\n {2}- /, '')
    expect(line({ store, agentFactory, limits: { idleMs: 0 } })).toBe('$.limits.idleMs: must be an integer from 1 to 2147483647 (found 0)')
    expect(line({ store, agentFactory, limits: { idleMs: 1.5 } })).toBe('$.limits.idleMs: must be an integer (found 1.5)')
    expect(line({ store, agentFactory, limits: { idle: 10 } })).toBe('$.limits.idle: unknown key "idle" — did you mean "idleMs"?')
    expect(line({ store, agentFactory, limits: { spawnWaitMs: 0 } })).toBe('$.limits.spawnWaitMs: must be an integer from 1 to 2147483647 (found 0)')
    expect(line({ store, agentFactory, limits: { spawnWaitMs: 2 ** 31 } })).toBe('$.limits.spawnWaitMs: must be an integer from 1 to 2147483647 (found 2147483648)')
    expect(line({ store, agentFactory, auth: { token: 'short' } })).toBe(
      '$.auth.token: must be a string of at least 16 characters (32 random characters recommended) (found a string not shown: under this key it could be a credential)',
    )
    expect(line({ store, agentFactory, auth: {} })).toBe('$.auth.token: is required')
    expect(line({ store, agentFactory, allowedHosts: 'bosun.internal' })).toBe('$.allowedHosts: must be an array (found "bosun.internal")')
    expect(line({ store, agentFactory, cors: { origins: ['app.example.com'] } })).toBe('$.cors.origins[0]: must be an origin that starts with http:// or https:// (found "app.example.com")')
    expect(line({ store, agentFactory, tokens: 'x' })).toMatch(/^\$\.tokens: unknown key "tokens"; the known keys are agentFactory, /)
    expect(line({ agentFactory })).toBe('$.store: is required')
    expect(line({ store })).toBe('$: must be an object with "store" and one of "agentFactory", "agent" or "config" to build each session\'s agent (found an object)')
    expect(line({ store: {}, agentFactory })).toBe('$.store: must be a Store (an object with open, create, list and close)')
    expect(line({ store, agentFactory, cluster: { relayWaitMs: -1 } })).toBe('$.cluster.relayWaitMs: must be an integer from 0 to 2147483647 (found -1)')
    // Each is handed to a Node timer, which fires at once for a longer wait (a poll every millisecond).
    for (const [group, key] of [['limits', 'idleMs'], ['limits', 'keepAliveMs'], ['limits', 'streamStallMs'], ['cluster', 'relayWaitMs'], ['cluster', 'relayRunMs'], ['cluster', 'pollIntervalMs']] as const) {
      expect(line({ store, agentFactory, [group]: { [key]: 2 ** 31 } })).toBe(`$.${group}.${key}: must be an integer from ${key === 'relayWaitMs' ? 0 : 1} to 2147483647 (found 2147483648)`)
    }
    expect(line({ store, agentFactory, cluster: { pollIntervalMs: 1.5 } })).toBe('$.cluster.pollIntervalMs: must be an integer (found 1.5)')
    expect(line({ store, agentFactory, cluster: { takeoverConcurrency: 0 } })).toBe('$.cluster.takeoverConcurrency: must be >= 1 (found 0)')
    expect(line({ store, agentFactory, cluster: { relayWait: 5 } })).toBe('$.cluster.relayWait: unknown key "relayWait" — did you mean "relayWaitMs"?')
    expect(line({ store, agentFactory, cluster: 'yes' })).toBe('$.cluster: must be false (no cluster) or an object of cluster options (found "yes")')
    expect(line({ store, agentFactory, cluster: true })).toBe('$.cluster: must be false (no cluster) or an object of cluster options (found true)')
    expect(line({ store, agentFactory: 'make one' })).toBe('$.agentFactory: must be a function ({ sessionId, store }) => Promise<Agent> (found "make one")')
    // Every problem at once; Infinity is not a number of milliseconds.
    expect(refusal({ store, agentFactory, limits: { idleMs: 0, pageSize: Number.POSITIVE_INFINITY } })).toBe(
      'Invalid options for createHost():\n  - $.limits.idleMs: must be an integer from 1 to 2147483647 (found 0)\n  - $.limits.pageSize: must be an integer (found Infinity)',
    )
    await createHost({ store, agentFactory, cluster: false }).close()
    const host = createHost({ store, agentFactory, auth: { token: 'x'.repeat(32) }, limits: { idleMs: 1000, pageSize: 10, spawnWaitMs: 5000 }, allowedHosts: ['bosun.internal'], cors: { origins: ['https://app.example.com'] } })
    await host.close()
  })
})
