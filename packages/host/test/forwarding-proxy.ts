// A reverse proxy as nginx or Caddy in front of the host is one: it listens on 127.0.0.1, appends
// the address each client came from to X-Forwarded-For, sets X-Forwarded-Proto (to `https`, as a
// proxy that terminates TLS would: the browser's scheme, not the hop's) and streams the answer
// back, SSE included. It connects to the host from `from`, the address the host must trust.
import { createServer, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ForwardingProxy {
  url: string
  close(): Promise<void>
}

export async function forwardingProxy(target: string, options: { proto: 'http' | 'https'; from?: string }): Promise<ForwardingProxy> {
  const upstream = new URL(target)
  const server = createServer((incoming: IncomingMessage, outgoing) => {
    const forwardedFor = [incoming.headers['x-forwarded-for'], incoming.socket.remoteAddress].filter((part) => part !== undefined).join(', ')
    const sent = request({
      host: upstream.hostname,
      port: upstream.port,
      path: incoming.url,
      method: incoming.method,
      localAddress: options.from ?? '127.0.0.1',
      agent: false,
      headers: { ...incoming.headers, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': options.proto },
    }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(outgoing)
    })
    sent.on('error', () => outgoing.destroy())
    // A client that goes away (an aborted stream) ends the upstream request too, as a proxy does.
    outgoing.on('close', () => sent.destroy())
    incoming.pipe(sent)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
