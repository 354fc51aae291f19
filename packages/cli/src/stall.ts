import type { ConfigStage } from '@bosun/core/config'
import { ExitCode } from './exit-codes.js'
import type { Io } from './io.js'
import { colorEnabled, createStyle } from './output.js'

/**
 * What `bosun` is waiting for, so that it can say so when that wait can never end. Node ends a
 * process whose event loop has nothing left to do even while an `await` is pending — exit code
 * 13, no word of what was pending. That is exactly the case of awaited code (a config file's
 * top-level `await`, a plugin's `setup`) waiting for something nothing left running will ever do:
 * bin.ts catches the moment (`beforeExit`) and {@link reportStall} names the innermost wait.
 * Waits are nested (loading the config, then its file's code): a stack, innermost last.
 */
interface Wait {
  /** `loading the config`, for the generic message. */
  doing: string
  /** The whole message, when there is more to say than "while <doing>". */
  message?: string
}

const waits: Wait[] = []

/** Marks the start of a wait; the returned function marks its end (once; later calls do nothing). */
export function waitingFor(wait: Wait): () => void {
  waits.push(wait)
  let ended = false
  return () => {
    if (ended) return
    ended = true
    waits.splice(waits.lastIndexOf(wait), 1)
  }
}

/** Runs `work` as a wait. */
export async function during<T>(wait: Wait, work: () => Promise<T>): Promise<T> {
  const end = waitingFor(wait)
  try {
    return await work()
  } finally {
    end()
  }
}

/**
 * The core config loader's stages as waits, for `onStage`. `file` is the config file, `entries`
 * its `plugins` as written, to name a plugin as the user knows it.
 */
export function configStages(file: string | undefined, entries: readonly unknown[] | undefined): (stage: ConfigStage) => () => void {
  return (stage) => {
    if (stage.kind === 'config-file') {
      return waitingFor({
        doing: `loading the config file ${stage.file}`,
        message: `The config file ${stage.file} never finished loading: its code awaits something that can never happen (nothing is left running that could finish it). Check its top-level awaits.`,
      })
    }
    const where = pluginWhere(stage, file, entries)
    return waitingFor({
      doing: `setting up plugin "${stage.plugin}"`,
      message: `Plugin "${stage.plugin}" (${where}) never finished its setup: setup returned a promise that can never settle (nothing is left running that could settle it). Fix the plugin's setup, or remove it from the config.`,
    })
  }
}

/**
 * Where a plugin is in the config, as the user wrote it: `plugins[1], "./gated.mjs" in <file>` (the
 * entry's spec when it is not the plugin's name).
 */
export function pluginWhere(stage: { plugin: string; index: number }, file: string | undefined, entries: readonly unknown[] | undefined): string {
  const entry = entries?.[stage.index]
  const spec = Array.isArray(entry) ? entry[0] : entry
  const written = typeof spec === 'string' && spec !== stage.plugin ? `, "${spec}"` : ''
  return `plugins[${stage.index}]${written}${file === undefined ? '' : ` in ${file}`}`
}

/**
 * Writes `error STALLED: …` naming the innermost wait (or saying that none was known) and
 * resolves with the exit code. For bin.ts, once the process has nothing left to do.
 */
export async function reportStall(io: Pick<Io, 'stderr' | 'env'>, argv: readonly string[]): Promise<number> {
  // Loaded here: errors.js loads the core, which `bosun --help` should not pay for at startup.
  const { describeError, cliError, CliErrorCodes, writeError } = await import('./errors.js')
  const wait = waits.at(-1)
  const message =
    wait === undefined
      ? 'bosun stopped with nothing left to do while it was still waiting: some awaited code can never finish (nothing is left running that could finish it).'
      : (wait.message ?? `bosun stopped while ${wait.doing}: that wait can never end (nothing is left running that could end it).`)
  const style = createStyle(colorEnabled(io.stderr, io.env, !argv.includes('--no-color')))
  writeError(io.stderr, describeError(cliError(CliErrorCodes.STALLED, message), style, false))
  return ExitCode.stalled
}
