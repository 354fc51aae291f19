import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { HostError } from './errors.js'
import { hostsWithoutToken, isLoopback } from './exposure.js'
import type { Host } from './host.js'

export interface ListenOptions {
  /** Default 127.0.0.1. */
  hostname?: string
  /** Default 4477; 0 picks a free port. */
  port?: number
  /**
   * Whether the host was created with a token: a non-loopback bind refuses to start without one.
   * A host from createHost() without `auth` is refused there whatever this says.
   */
  hasToken: boolean
}

export interface RunningServer {
  url: string
  port: number
  /** Stops accepting connections, then closes the host (flushing every session). */
  close(options?: { graceMs?: number }): Promise<void>
}

export { isLoopback }

/** Whether `host`, or the app, fetch or close it carries, is one createHost() made without a token. */
function madeWithoutToken(host: Host): boolean {
  return [host, host.app, host.fetch, host.close].some((part) => typeof part === 'object' || typeof part === 'function' ? hostsWithoutToken.has(part) : false)
}

/** Serves a host with @hono/node-server. Refuses a non-loopback bind without a token. */
export async function listen(host: Host, options: ListenOptions): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1'
  const port = options.port ?? 4477
  if (!isLoopback(hostname) && (!options.hasToken || madeWithoutToken(host))) {
    throw new HostError('not-authorized', `Refusing to listen on ${hostname} without a token: create the host with auth: { token } (32+ random characters; bosun serve reads BOSUN_HOST_TOKEN), or bind to 127.0.0.1.`)
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: host.fetch, hostname, port }, () => resolve(s))
    s.once('error', reject)
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}`,
    port: address.port,
    async close({ graceMs = 0 } = {}) {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      await host.close({ graceMs })
      ;(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.()
      await stopped
    },
  }
}
