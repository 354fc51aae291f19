import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import * as acp from '@agentclientprotocol/sdk'
import { STOP_GRACE_MS, watchChild } from '../../../tests/support/child-process.js'

/** The built CLI: ACP tests drive `bosun acp` as a real child process. */
export const BIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../cli/dist/bin.js')

export type Update = acp.SessionNotification['update']

/**
 * Starts `bosun acp` in `dir` and drives it as an ACP client (initialize first); resolves with
 * what `op` returns. `children` collects the processes so a test's cleanup can kill leftovers.
 */
export async function withAcpAgent<T>(dir: string, children: ChildProcess[], op: (ctx: acp.ClientContext, updates: Update[]) => Promise<T>): Promise<T> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json).`)
  const child = spawn(process.execPath, [BIN, 'acp'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  children.push(child)
  const watched = watchChild(child)
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t))
  const updates: Update[] = []
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>)
  const app = acp.client({ name: 'test' }).onNotification('session/update', ({ params }) => {
    updates.push(params.update)
  })
  try {
    return await app.connectWith(stream, async (ctx) => {
      await ctx.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
      return op(ctx, updates)
    })
  } catch (error) {
    const spawnError = watched.spawnError()
    throw new Error(`${String(spawnError ?? error)}\nstderr: ${stderr}`)
  } finally {
    // `bosun acp` ends on stdin's end; one that does not is stopped, so the test's cleanup never hangs.
    child.stdin.end()
    if (!(await watched.endsWithin(STOP_GRACE_MS))) await watched.stop()
  }
}
