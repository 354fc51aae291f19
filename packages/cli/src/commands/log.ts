import { setTimeout as sleep } from 'node:timers/promises'
import type { SessionEvent } from '@bosun/core'
import { loadCliConfig, openReader, readSession } from '../agent.js'
import type { CommandContext } from '../context.js'
import { terminalRows } from '../wrap.js'
import { ExitCode } from '../exit-codes.js'
import { safeJson } from '../terminal-safe.js'
import { TimelineView } from '../timeline.js'

export interface LogOptions {
  /** Raw events, one JSON object per line. */
  json?: boolean
  /** Keep printing events as they are appended, until Ctrl+C. */
  follow?: boolean
  /** Every event in the core's one-line form, chunks included. */
  all?: boolean
}

/** How often `--follow` looks for new events (less often when reading takes long). */
export const FOLLOW_INTERVAL_MS = 200

/**
 * `bosun log <id>`: the session's timeline (turns, steps, messages, tool calls, retries,
 * rejections, compactions), `--json` for the raw events, `--follow` to watch it grow.
 */
export async function logCommand(ctx: CommandContext, id: string, options: LogOptions): Promise<number> {
  const cfg = await loadCliConfig(ctx.io, ctx.configFile)
  const reader = await openReader(cfg)
  try {
    const log = await readSession(cfg, reader, id, ctx.io.cwd)
    const view = new TimelineView(ctx.out.style, { all: options.all === true })
    // On a terminal each line is word-wrapped, its rows after the first indented under it: left to
    // the terminal, a long retry or error line was cut mid-word and ran on at the left edge, as if
    // it were the next item. A pipe gets the lines whole.
    const show = (lines: readonly string[]) => {
      for (const row of terminalRows(lines, ctx.out.columns)) ctx.out.line(row)
    }
    const print = (event: SessionEvent) => {
      if (options.json) ctx.out.line(safeJson(JSON.stringify(event)))
      else show(view.render(event))
    }
    if (!options.json) show(view.header(log.header))
    // A step's line waits for the request that names its model: what is held is printed at the end of each read.
    const end = () => {
      if (!options.json) show(view.end())
    }
    for (const event of log.events) print(event)
    end()
    if (!options.follow) return ExitCode.ok

    let stopped = false
    let wake: () => void = () => {}
    const unsubscribe = ctx.io.onInterrupt(() => {
      stopped = true
      wake()
    })
    try {
      let seen = log.events.length
      if (!options.json) ctx.err.line(ctx.err.style.dim(`following ${id} — Ctrl+C to stop`))
      while (!stopped) {
        const began = performance.now()
        for (const event of await reader.readAfter(id, seen)) {
          print(event)
          seen = event.seq + 1
        }
        end()
        // A store reads the whole session again when it changed: for a large one, rest at least
        // twice as long as that took, so that following never takes most of a core.
        const pause = Math.max(FOLLOW_INTERVAL_MS, 2 * (performance.now() - began))
        await new Promise<void>((resolve) => {
          wake = resolve
          void sleep(pause).then(resolve)
        })
      }
    } finally {
      unsubscribe()
    }
    return ExitCode.ok
  } finally {
    await reader.close()
  }
}
