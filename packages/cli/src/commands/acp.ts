import { Readable, Writable } from 'node:stream'
import { runAcpAgent } from '@bosun/host/acp'
import { loadCliConfig, openAgent, openStore } from '../agent.js'
import type { CommandContext } from '../context.js'
import { ExitCode } from '../exit-codes.js'
import { slowSetupMs } from '../slow-setup.js'
import { requireReadyStore } from '../store-ready.js'

/**
 * `bosun acp`: the config's sessions as an Agent Client Protocol agent on stdio (for editors).
 * stdout carries only protocol messages; anything else goes to stderr. Ends when stdin closes,
 * after closing every session (flushing it).
 */
export async function acpCommand(ctx: CommandContext): Promise<number> {
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const store = await openStore(cfg)
  // A store that connects (PostgreSQL) connects now, as `bosun serve` does: a wrong password or a
  // missing database ends the command with the store's error instead of failing every request.
  await requireReadyStore(store, { afterMs: slowSetupMs(ctx.io.env), then: 'bosun acp answers', say: (line) => ctx.err.line(line) }).catch(async (error: unknown) => {
    await store.close().catch(() => {})
    throw error
  })
  const agent = runAcpAgent({
    store,
    agentFactory: ({ sessionId, store }) => openAgent(cfg, store, sessionId),
    input: Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
    output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  })
  const stop = ctx.io.onInterrupt(() => {
    void agent.close()
  })
  process.once('SIGTERM', () => void agent.close())
  await agent.closed
  stop()
  await store.close()
  return ExitCode.ok
}
