import { randomBytes } from 'node:crypto'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { memoryStore, type Store } from '@bosun/core'
import { createHost, isLoopback, listen, trustedProxyProblem } from '@bosun/host'
import { isWebBuilt, webRoot } from '@bosun/web'
import { configPlugins, describeStore, loadCliConfig, modelLabel, openAgent, openStore, storeKind, type CliConfig } from '../agent.js'
import type { CommandContext } from '../context.js'
import { CliErrorCodes, cliError } from '../errors.js'
import { ExitCode } from '../exit-codes.js'
import { slowSetupMs, slowSetupWatch } from '../slow-setup.js'
import { requireWritableFolder } from '../sessions-folder.js'
import { requireReadyStore } from '../store-ready.js'
import { onStopSignal, type StopSignal } from '../stop-signals.js'
import { aiSdkModel } from './config.js'

export interface ServeOptions {
  port?: string
  host?: string
  graceMs?: string
  tokenFile?: string
  initToken?: boolean
  cors?: string[]
  allowedHost?: string[]
  trustedProxy?: string[]
  relayWaitMs?: string
  relayRunMs?: string
  clusterPollMs?: string
  takeoverConcurrency?: string
}

function corsOrigins(values: string[]): string[] {
  return values.map((value) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw cliError(CliErrorCodes.USAGE, `--cors takes an origin such as https://app.example.com, got "${value}".`)
    }
    if (url.origin === 'null' || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw cliError(CliErrorCodes.USAGE, `--cors takes an http(s) origin such as https://app.example.com, got "${value}".`)
    }
    return url.origin
  })
}

function allowedHosts(values: string[]): string[] {
  return values.map((value) => {
    const name = value.trim().toLowerCase()
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)$/.test(name)) {
      throw cliError(CliErrorCodes.USAGE, `--allowed-host takes a host name or address without scheme or port (e.g. bosun.internal), got "${value}".`)
    }
    return name
  })
}

/** `--trusted-proxy`: each an address or CIDR block, in the host's own words for what is wrong. */
function trustedProxies(values: string[]): string[] {
  return values.map((value) => {
    const entry = value.trim()
    const problem = trustedProxyProblem(entry)
    if (problem !== undefined) throw cliError(CliErrorCodes.USAGE, `--trusted-proxy ${problem}, got "${value}".`)
    return entry
  })
}

export const DEFAULT_TOKEN_FILE = '.bosun/host-token'

/** `--init-token`: writes 32 random bytes (hex) to the token file, mode 0600; never overwrites. */
async function initToken(ctx: CommandContext, file: string): Promise<number> {
  await mkdir(dirname(file), { recursive: true })
  try {
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw cliError(CliErrorCodes.USAGE, `${file} already exists: serve with --token-file ${file}, or delete it to make a new token.`)
    }
    throw error
  }
  ctx.out.line(`token written to ${file} (mode 0600); serve with: bosun serve --token-file ${file}`)
  return ExitCode.ok
}

async function readToken(file: string): Promise<string> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw cliError(CliErrorCodes.USAGE, `Cannot read the token file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}): create it with bosun serve --init-token --token-file ${file}.`)
  }
  if (process.platform !== 'win32' && ((await stat(file)).mode & 0o077) !== 0) {
    throw cliError(CliErrorCodes.USAGE, `The token file ${file} is readable by other users: chmod 600 ${file}.`)
  }
  return text.trim()
}

function intOption(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value > max) throw cliError(CliErrorCodes.USAGE, `--${name} must be a whole number from 0 to ${max}, got "${raw}".`)
  return value
}

/**
 * `bosun serve`: the host (HTTP + SSE, docs/host.md) over the config's store. Prints the URL,
 * serves until SIGINT, SIGTERM or (from a terminal) SIGHUP, then stops accepting, lets running turns finish for the grace
 * period (then aborts them) — starting no new one: queued messages wait for the next start —
 * closes every session (flushing it) and exits 0.
 */
export async function serveCommand(ctx: CommandContext, options: ServeOptions): Promise<number> {
  const port = intOption('port', options.port, 4477, 65535)
  const graceMs = intOption('grace-ms', options.graceMs, 5000, 600_000)
  const hostname = options.host ?? '127.0.0.1'
  const tokenFile = options.tokenFile === undefined ? undefined : resolve(options.tokenFile)
  if (options.initToken === true) return initToken(ctx, tokenFile ?? resolve(DEFAULT_TOKEN_FILE))
  const token = tokenFile !== undefined ? await readToken(tokenFile) : ctx.io.env.BOSUN_HOST_TOKEN
  const where = tokenFile !== undefined ? `the token file ${tokenFile}` : 'BOSUN_HOST_TOKEN'
  if (token !== undefined && token.length < 32) {
    throw cliError(CliErrorCodes.USAGE, `The token in ${where} must be at least 32 random characters (bosun serve --init-token makes one).`)
  }
  if (!isLoopback(hostname) && token === undefined) {
    throw cliError(CliErrorCodes.USAGE, `Refusing to serve on ${hostname} without a token: set BOSUN_HOST_TOKEN to 32+ random characters or pass --token-file (bosun serve --init-token makes one), or serve on 127.0.0.1.`)
  }
  // On a store with the cluster API (PostgreSQL), this host is one of many (docs/scale-out.md).
  const takeoverConcurrency = intOption('takeover-concurrency', options.takeoverConcurrency, 8, 1000)
  if (takeoverConcurrency < 1) throw cliError(CliErrorCodes.USAGE, '--takeover-concurrency must be at least 1 (1 opens a dead host\'s sessions one after another).')
  const relayRunMs = intOption('relay-run-ms', options.relayRunMs, 30_000, 3_600_000)
  if (relayRunMs < 1) throw cliError(CliErrorCodes.USAGE, '--relay-run-ms must be at least 1 (the owner gives up on a relayed request after this many ms).')
  const cluster = {
    relayWaitMs: intOption('relay-wait-ms', options.relayWaitMs, 5000, 600_000),
    relayRunMs,
    pollIntervalMs: Math.max(50, intOption('cluster-poll-ms', options.clusterPollMs, 1000, 600_000)),
    takeoverConcurrency,
  }
  const slowSetupAfterMs = slowSetupMs(ctx.io.env)
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  // Every session is built from the config: one that cannot be built (an adapter not found, its
  // key's variable unset, a plugin's options wrong) is refused now, with every problem, as `bosun
  // run` refuses it — the host listened, then answered each request 500 with the reason only in its
  // log. Built as `bosun config check` builds it: on a throwaway memory store, closed at once.
  // A setup still running after a few seconds is named on stderr — nothing is printed before the
  // URL, so a hung third-party setup looked like a hung serve — and waited for: no timeout can
  // tell a hung setup from a slow one.
  const file = cfg.file === undefined ? undefined : relative(ctx.io.cwd, cfg.file) || cfg.file
  const watch = slowSetupWatch({ afterMs: slowSetupAfterMs, file, entries: configPlugins(cfg), then: 'bosun serve listens', say: (line) => ctx.err.line(line) })
  await (await openAgent(cfg, memoryStore(), undefined, undefined, watch)).close()
  // The sessions folder too: the JSONL store first touches it when a session is listed or opened.
  const kept = storeKind(cfg)
  if (kept.kind === 'jsonl') await requireWritableFolder(kept.dir)
  const store: Store = await openStore(cfg)
  // A store that connects (PostgreSQL) connects now, with its schema's checks: it connects on its
  // first operation, so a wrong password or a database that does not exist let the host listen,
  // then answer every request 500 internal-error with a stack trace in its log.
  await requireReadyStore(store, { afterMs: slowSetupAfterMs, then: 'bosun serve listens', say: (line) => ctx.err.line(line) }).catch(async (error: unknown) => {
    await store.close().catch(() => {})
    throw error
  })
  const host = createHost({
    store,
    // The host aborts an open that outlasts limits.openTimeoutMs: the session's lock is released then.
    agentFactory: ({ sessionId, store, signal }) => openAgent(cfg, store, sessionId, signal),
    cluster,
    ...(token === undefined ? {} : { auth: { token } }),
    // The bind address is not a name clients use: the Host fence takes --allowed-host names (and,
    // with a token, is off unless some are given; docs/host.md, "Exposure").
    ...(options.allowedHost === undefined || options.allowedHost.length === 0 ? {} : { allowedHosts: allowedHosts(options.allowedHost) }),
    ...(options.cors === undefined || options.cors.length === 0 ? {} : { cors: { origins: corsOrigins(options.cors) } }),
    // Only a proxy named here has its X-Forwarded-For / X-Forwarded-Proto believed (docs/host.md, "Behind a reverse proxy").
    ...(options.trustedProxy === undefined || options.trustedProxy.length === 0 ? {} : { trustedProxies: trustedProxies(options.trustedProxy) }),
    // The web UI at / (docs/web.md). A published @bosun/web always holds it; a source checkout has
    // it after `pnpm build`.
    ...(isWebBuilt() ? { webRoot } : {}),
  })
  let server
  try {
    server = await listen(host, { hostname, port, hasToken: token !== undefined })
  } catch (error) {
    await host.close()
    await store.close().catch(() => {})
    throw listenError(error, hostname, port)
  }
  // SIGHUP too when a terminal can hang up on it (its window closed): the same graceful stop, not
  // Node's default death with running turns left open (stop-signals.ts). Listened to before the
  // URL is printed: a script that stops the host as soon as it sees the URL gets the graceful stop.
  const stopped = new Promise<StopSignal | 'SIGINT'>((resolve) => {
    const stop = (signal: StopSignal | 'SIGINT'): void => {
      unsubscribe()
      stopListening()
      resolve(signal)
    }
    const unsubscribe = ctx.io.onInterrupt(() => stop('SIGINT'))
    const stopListening = onStopSignal(stop)
  })
  ctx.out.line(`bosun host listening on ${server.url}`)
  ctx.err.line(servingLine(cfg, ctx.io.cwd))
  ctx.err.line(isWebBuilt() ? `web UI: ${server.url.replace(/\/+$/, '')}/` : 'web UI not built (pnpm build builds it): only the /v1 API is served')
  if (host.cluster !== undefined) ctx.err.line(`cluster: one of the hosts on this store, as lease owner "${host.cluster.store.owner}" (docs/scale-out.md)`)
  ctx.err.line(token === undefined ? 'no token: loopback only (Host/Origin fenced)' : `bearer token required: the one in ${where}`)
  const stoppedBy = await stopped
  ctx.err.line(`stopping: running turns get ${graceMs} ms (queued messages wait for the next start), then every session is closed`)
  await server.close({ graceMs })
  await store.close()
  ctx.err.line('stopped')
  // A hangup ends the process as SIGHUP would have (bin.ts): the terminal to report to is gone.
  return stoppedBy === 'SIGHUP' ? ExitCode.hangup : ExitCode.ok
}

/**
 * What this host serves, said first: the config file (or that none was found, so the scripted
 * model echoes), the adapter and model id, and where sessions go. The config is read once: a
 * changed config takes a restart. No option value is shown (a baseURL or header may be a secret).
 */
function servingLine(cfg: CliConfig, cwd: string): string {
  const sessions = `sessions in ${describeStore(cfg, cwd)}`
  if (cfg.file === undefined) return `no config found (searched from ${cwd} up to the project root): offline defaults — scripted model (it echoes each message), ${sessions}`
  const object = aiSdkModel((cfg.loaded.config.model?.options as { model?: unknown } | undefined)?.model)
  const model = object === undefined ? modelLabel(cfg) : `${modelLabel(cfg)} ${object.modelId} (provider ${object.provider})`
  return `config: ${relative(cwd, cfg.file) || cfg.file} — model: ${model}, ${sessions}`
}

/** Why the socket could not listen, as what to do: an address in use, a port not allowed, an address not this machine's. Other errors pass. */
function listenError(error: unknown, hostname: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code
  const at = `${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`
  const what =
    code === 'EADDRINUSE' ? `the port is already in use (another bosun serve, or another program). Stop it, or pick another port: --port <n> (--port 0 picks a free one).`
    : code === 'EACCES' ? `this user may not listen on port ${port} (ports below 1024 need privileges). Pick a port from 1024 up: --port <n> (--port 0 picks a free one).`
    : code === 'EADDRNOTAVAIL' ? `${hostname} is not an address of this machine. Bind one of its addresses with --host (127.0.0.1, the default, or 0.0.0.0 for all of them, with a token).`
    : undefined
  return what === undefined ? error : cliError(CliErrorCodes.LISTEN_FAILED, `Cannot listen on ${at}: ${what}`, { code, hostname, port })
}
