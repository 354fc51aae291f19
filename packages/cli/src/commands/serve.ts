import type { Store } from '@bosun/core'
import { createHost, isLoopback, listen } from '@bosun/host'
import { loadCliConfig, openAgent, openStore } from '../agent.js'
import type { CommandContext } from '../context.js'
import { CliErrorCodes, cliError } from '../errors.js'
import { ExitCode } from '../exit-codes.js'

export interface ServeOptions {
  port?: string
  host?: string
  graceMs?: string
}

function intOption(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value > max) throw cliError(CliErrorCodes.USAGE, `--${name} must be a whole number from 0 to ${max}, got "${raw}".`)
  return value
}

/**
 * `bosun serve`: the host (HTTP + SSE, docs/host.md) over the config's store. Prints the URL,
 * serves until SIGINT or SIGTERM, then stops accepting, lets running turns finish for the grace
 * period (then aborts them), closes every session (flushing it) and exits 0.
 */
export async function serveCommand(ctx: CommandContext, options: ServeOptions): Promise<number> {
  const port = intOption('port', options.port, 4477, 65535)
  const graceMs = intOption('grace-ms', options.graceMs, 5000, 600_000)
  const hostname = options.host ?? '127.0.0.1'
  const token = ctx.io.env.BOSUN_HOST_TOKEN
  if (token !== undefined && token.length < 32) {
    throw cliError(CliErrorCodes.USAGE, 'BOSUN_HOST_TOKEN must be at least 32 random characters (e.g. `openssl rand -hex 32`).')
  }
  if (!isLoopback(hostname) && token === undefined) {
    throw cliError(CliErrorCodes.USAGE, `Refusing to serve on ${hostname} without a token: set BOSUN_HOST_TOKEN to 32+ random characters, or serve on 127.0.0.1.`)
  }
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const store: Store = await openStore(cfg)
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => openAgent(cfg, store, sessionId),
    ...(token === undefined ? {} : { auth: { token } }),
    ...(isLoopback(hostname) ? {} : { allowedHosts: [hostname] }),
  })
  let server
  try {
    server = await listen(host, { hostname, port, hasToken: token !== undefined })
  } catch (error) {
    await host.close()
    await store.close().catch(() => {})
    throw error
  }
  ctx.out.line(`bosun host listening on ${server.url}`)
  ctx.err.line(token === undefined ? 'no token: loopback only (Host/Origin fenced)' : 'bearer token required: the one in BOSUN_HOST_TOKEN')
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      unsubscribe()
      process.off('SIGTERM', stop)
      resolve()
    }
    const unsubscribe = ctx.io.onInterrupt(stop)
    process.once('SIGTERM', stop)
  })
  ctx.err.line(`stopping: running turns get ${graceMs} ms, then every session is closed`)
  await server.close({ graceMs })
  await store.close()
  ctx.err.line('stopped')
  return ExitCode.ok
}
