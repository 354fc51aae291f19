import { createServer, type Server } from 'node:http'

export interface PlainAnswer { status: number; headers: Record<string, string>; body: string }

/**
 * A plain HTTP server on 127.0.0.1 (not a Bosun host) answering the n-th request (from 0) with
 * `answer(n)`: how the client takes what a proxy, a rate limiter or a refusing host sends. Closed
 * (its connections too) by the `closing` list of perTest().
 */
export async function plainServer(closing: { close(): Promise<void> }[], answer: (n: number) => PlainAnswer): Promise<{ url: string; requests: () => number }> {
  let n = 0
  const server: Server = createServer((_request, response) => {
    const { status, headers, body } = answer(n++)
    response.writeHead(status, headers)
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closing.push({ close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }) })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, requests: () => n }
}
