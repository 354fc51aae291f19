// Issue 13.1: a redirect never carries x-api-key or the custom headers to another origin.
import { serializeError } from '@bosun/core'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { bystander, REDIRECTS, redirect, type Bystander } from '../../openai/src/testing/hostile.js'
import { ask, collect, model, SECRET, warmUpFetch } from './testing/helpers.js'
import { fakeServer, type FakeServer } from './testing/server.js'

let server: FakeServer
let other: Bystander
beforeAll(warmUpFetch)
beforeEach(async () => {
  ;[server, other] = await Promise.all([fakeServer(), bystander()])
})
afterEach(async () => {
  await Promise.all([server.close(), other.close()])
})

const run = () => collect(model(server.baseURL, { headers: { 'anthropic-beta': 'tenant-7' } }).stream(ask(), { signal: new AbortController().signal }))

describe('a redirect from baseURL', () => {
  for (const status of REDIRECTS) {
    it(`HTTP ${status} to another origin: not followed; PROVIDER_REDIRECT names the origin only`, async () => {
      server.reply(redirect(status, `${other.origin}/v1/messages?token=s3cr3t-path-token`))
      const { chunks, error } = await run()
      expect(other.requests).toEqual([])
      expect(chunks).toEqual([])
      expect(error).toMatchObject({ code: 'PROVIDER_REDIRECT', status, retryable: false })
      expect(error!.message).toContain(`redirecting to ${other.origin}.`)
      const shown = JSON.stringify(serializeError(error)) + String(error!.stack)
      expect(shown).not.toContain('s3cr3t-path-token')
      expect(shown).not.toContain('/v1/messages')
      expect(shown).not.toContain(SECRET)
    })
  }
})
