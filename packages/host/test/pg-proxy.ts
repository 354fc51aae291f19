import { connect, createServer, type Socket } from 'node:net'

/** How a store's watcher names its LISTEN connection (`application_name`, in the startup packet). */
const LISTEN_APPLICATION = 'bosun-store-postgres:listen'

/** A TCP proxy to a test's PostgreSQL, see {@link pgProxy}. */
export interface PgProxy {
  /** The database's URL through the proxy. */
  url: string
  /** Holds each new connection for which `hold(startup packet)` is true, unanswered, until {@link release}. */
  hold(hold: (startup: Buffer) => boolean): void
  /** Lets the connections held (and every later one) through. */
  release(): void
  /** How many connections are held. */
  held(): number
  /**
   * Makes the database stop answering, as a server that hangs does (a paused backend, a network
   * partition, a failover that leaves the old address silent): every connection open through the
   * proxy is cut without being closed — what is sent on it is never forwarded, no answer and no
   * FIN ever comes back — and every new one is held. {@link release} lets new connections through
   * again; the cut ones stay silent for good, as they would after a failover.
   */
  stall(): void
  /** The local ports (PostgreSQL's `client_port`) of the LISTEN connections made through the proxy, oldest first. */
  listens(): number[]
  /** Takes no new connection; those open end with their clients. */
  close(): void
  /** Closes, and destroys every connection still open through it. */
  destroy(): void
}

/**
 * A TCP proxy to PostgreSQL at `url` that can hold connections (by their startup packet) and cut
 * them. Reads the startup packet in clear: the test clusters use no TLS. `allowHalfOpen`: a client
 * that ends a cut connection is not answered with an end either.
 */
export async function pgProxy(url: string): Promise<PgProxy> {
  const target = new URL(url)
  const cuts = new Set<() => void>()
  const waiting: Array<() => void> = []
  const sockets = new Set<Socket>()
  const listens: number[] = []
  let holds: ((startup: Buffer) => boolean) | undefined
  const track = (socket: Socket): Socket => {
    sockets.add(socket)
    socket.on('error', () => socket.destroy())
    socket.on('close', () => sockets.delete(socket))
    return socket
  }
  const server = createServer({ allowHalfOpen: true }, (client) => {
    track(client)
    let startup = Buffer.alloc(0)
    const onData = (chunk: Buffer): void => {
      startup = Buffer.concat([startup, chunk])
      if (startup.length < 4 || startup.length < startup.readInt32BE(0)) return
      client.off('data', onData)
      client.pause()
      const pass = (): void => {
        if (client.destroyed) return
        const upstream = track(connect({ port: Number(target.port || 5432), host: target.hostname, allowHalfOpen: true }, () => {
          if (startup.includes(LISTEN_APPLICATION)) listens.push(upstream.localPort!)
          upstream.write(startup)
          client.pipe(upstream)
          upstream.pipe(client)
          client.resume()
        }))
        const cut = (): void => {
          client.unpipe(upstream)
          upstream.unpipe(client)
          client.pause()
          upstream.pause()
          cuts.delete(cut)
        }
        cuts.add(cut)
        upstream.on('close', () => client.destroy())
        client.on('close', () => {
          cuts.delete(cut)
          upstream.destroy()
        })
      }
      if (holds?.(startup)) waiting.push(pass)
      else pass()
    }
    client.on('data', onData)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String((server.address() as { port: number }).port)
  const release = (): void => {
    holds = undefined
    for (const pass of waiting.splice(0)) pass()
  }
  return {
    url: proxied.toString(),
    hold: (hold) => (holds = hold),
    release,
    held: () => waiting.length,
    stall: () => {
      holds = () => true
      for (const cut of [...cuts]) cut()
    },
    listens: () => [...listens],
    close: () => server.close(),
    destroy: () => {
      server.close()
      for (const socket of sockets) socket.destroy()
    },
  }
}

/** Whether a startup packet is a store watcher's LISTEN connection's. */
export const isListen = (startup: Buffer): boolean => startup.includes(LISTEN_APPLICATION)
