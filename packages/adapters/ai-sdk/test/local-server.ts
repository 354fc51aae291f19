import { afterAll, beforeAll, beforeEach } from 'vitest'
import { warmUpFetch } from '../../openai/src/testing/hostile.js'
import { startServer, type TestServer } from '../../openai/src/testing/server.js'

/**
 * A real local server for a test file's providers to call (the openai adapter's test server):
 * started once for the file, its replies and records reset before each test, closed after.
 * Read `server` inside a test, once `beforeAll` has run.
 */
export function useLocalServer(): { readonly server: TestServer } {
  let started: TestServer | undefined
  beforeAll(async () => {
    await warmUpFetch()
    started = await startServer()
  })
  afterAll(() => started?.close())
  beforeEach(() => started?.reset())
  return {
    get server() {
      if (started === undefined) throw new Error('the local server is read before beforeAll started it')
      return started
    },
  }
}
