// A registry on 127.0.0.1 that answers what `answer` gives for a URL (as JSON, or a tarball's bytes)
// and 404 for the rest: enough of the npm registry API for `bosun plugins search | info | add`
// without Verdaccio.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string
  close(): Promise<void>
}

/** Starts the registry; `answer(url, base)` returns a document, a Buffer (a tarball) or `undefined` for a 404. */
export async function localRegistry(answer: (url: URL, base: string) => unknown): Promise<LocalRegistry> {
  let base = ''
  const server = createServer((request, response) => {
    const body = answer(new URL(request.url!, base), base)
    if (Buffer.isBuffer(body)) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body) // a tarball
      return
    }
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' })
    response.end(JSON.stringify(body ?? { error: 'not found' }))
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return {
    url: base,
    close: async () => {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    },
  }
}
