// A page on another origin calls `bosun serve --cors <its origin>` from Chromium: the preflight
// lets its bearer token and JSON body through, and the script can read the headers the API
// answers with (the inbox version in `etag`, which an edit sends back as `if-match`). Needs
// `pnpm build`; without Chromium outside CI it is not registered (no-browser.test.ts).
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasChromium, launch, serve, workspace, type Serve, type Workspace } from './harness.js'

/**
 * A blank page on its own origin (a free port of 127.0.0.1 it binds itself, started before the
 * host so that its origin is the one --cors allows): the app that calls the host.
 */
async function appServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end('<!doctype html><title>app</title><p>app</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

if (hasChromium) {
  describe('a page on another origin, allowed by --cors, in Chromium', () => {
    const token = randomBytes(24).toString('hex')
    let work: Workspace
    let host: Serve
    let app: Server
    let appOrigin: string
    let browser: Awaited<ReturnType<typeof launch>>
    beforeAll(async () => {
      const started = await appServer()
      app = started.server
      appOrigin = started.origin
      work = await workspace([])
      host = await serve(work.dir, { env: { BOSUN_HOST_TOKEN: token }, args: ['--cors', appOrigin] })
      browser = await launch()
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      await host?.stop()
      await new Promise((resolve) => app?.close(resolve))
      await work?.cleanup()
    }, 60_000)

    it('creates a session and reads its inbox version from the etag header', async () => {
      const page = await browser.context.newPage()
      try {
        await page.goto(appOrigin)
        const seen = await page.evaluate(
          async ({ url, token }) => {
            const auth = { authorization: `Bearer ${token}` }
            const created = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'from-the-app' }) })
            const read = await fetch(`${url}/v1/sessions/from-the-app`, { headers: auth })
            const body = (await read.json()) as { inboxVersion: number }
            return { created: created.status, read: read.status, etag: read.headers.get('etag'), inboxVersion: body.inboxVersion }
          },
          { url: host.url, token },
        )
        expect(seen.created).toBe(201)
        expect(seen.read).toBe(200)
        // Hidden from the script unless the host lists it in access-control-expose-headers.
        expect(seen.etag).toBe(`"${seen.inboxVersion}"`)
      } finally {
        await page.close()
      }
    }, 120_000)
  })
}
