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
  it('are checked by one schema, the error naming the option', async () => {
    const store = memoryStore()
    expect(refusal({ store, agentFactory, limits: { idleMs: 0 } })).toMatch(/"limits\.idleMs" must be >= 1/)
    expect(refusal({ store, agentFactory, limits: { idleMs: 1.5 } })).toMatch(/"limits\.idleMs" must be integer/)
    expect(refusal({ store, agentFactory, limits: { idle: 10 } })).toMatch(/"limits" has unknown option "idle"/)
    expect(refusal({ store, agentFactory, limits: { spawnWaitMs: 0 } })).toMatch(/"limits\.spawnWaitMs" must be >= 1/)
    expect(refusal({ store, agentFactory, limits: { spawnWaitMs: 2 ** 31 } })).toMatch(/"limits\.spawnWaitMs" must be <= 2147483647/)
    expect(refusal({ store, agentFactory, auth: { token: 'short' } })).toMatch(/"auth\.token" must NOT have fewer than 16 characters \(32 random/)
    expect(refusal({ store, agentFactory, auth: {} })).toMatch(/"auth\.token" is required/)
    expect(refusal({ store, agentFactory, allowedHosts: 'bosun.internal' })).toMatch(/"allowedHosts" must be array/)
    expect(refusal({ store, agentFactory, cors: { origins: ['app.example.com'] } })).toMatch(/"cors\.origins\.0" must match pattern/)
    expect(refusal({ store, agentFactory, tokens: 'x' })).toMatch(/unknown option "tokens"/)
    expect(refusal({ agentFactory })).toMatch(/"store" is required/)
    expect(refusal({ store })).toMatch(/pass "agentFactory", "agent" or "config"/)
    expect(refusal({ store: {}, agentFactory })).toMatch(/"store" must be a Store/)
    expect(refusal({ store, agentFactory, cluster: { relayWaitMs: -1 } })).toMatch(/"cluster\.relayWaitMs" must be >= 0/)
    expect(refusal({ store, agentFactory, cluster: { pollIntervalMs: 0.5 } })).toMatch(/"cluster\.pollIntervalMs" must be integer/)
    expect(refusal({ store, agentFactory, cluster: { takeoverConcurrency: 0 } })).toMatch(/"cluster\.takeoverConcurrency" must be >= 1/)
    expect(refusal({ store, agentFactory, cluster: { relayWait: 5 } })).toMatch(/"cluster" has unknown option "relayWait"/)
    expect(refusal({ store, agentFactory, cluster: 'yes' })).toMatch(/"cluster" must be object/)
    expect(refusal({ store, agentFactory: 'make one' })).toMatch(/"agentFactory" must be a function/)
    const host = createHost({ store, agentFactory, auth: { token: 'x'.repeat(32) }, limits: { idleMs: 1000, pageSize: 10, spawnWaitMs: 5000 }, allowedHosts: ['bosun.internal'], cors: { origins: ['https://app.example.com'] } })
    await host.close()
  })
})
