import type { OnConfigStage } from '@bosun/core/config'
import { CliErrorCodes, cliError } from './errors.js'
import { pluginWhere } from './stall.js'

/** How long a plugin's setup runs before `bosun serve` says it still waits for it. */
export const SLOW_SETUP_MS = 5_000

/** The environment variable that sets another interval (ms): tests use a short one. */
export const SLOW_SETUP_ENV = 'BOSUN_SLOW_SETUP_MS'

/** The interval {@link SLOW_SETUP_ENV} sets, else {@link SLOW_SETUP_MS}; a value that is not a whole number of ms is a usage error. */
export function slowSetupMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[SLOW_SETUP_ENV]
  if (raw === undefined || raw === '') return SLOW_SETUP_MS
  const value = Number(raw)
  if (!/^\d+$/.test(raw) || value < 1 || value > 3_600_000) {
    throw cliError(CliErrorCodes.USAGE, `${SLOW_SETUP_ENV} must be a whole number of milliseconds from 1 to 3600000, got "${raw}".`)
  }
  return value
}

export interface SlowSetupWatch {
  /** How long a setup may run before it is named. */
  afterMs: number
  /** The config file as shown (relative to where bosun runs), and its `plugins` as written. */
  file: string | undefined
  entries: readonly unknown[] | undefined
  /** What the command is waiting to do: `bosun serve listens`. */
  then: string
  /** Writes the line (to stderr). */
  say: (line: string) => void
}

/**
 * A config stage listener that names a plugin whose setup has run `afterMs` without settling —
 * once per setup, and only that: the setup is not cut short, since a slow one (a database to
 * connect to, a model to download) may be fine, and no timeout can tell which is. A setup that
 * settles sooner prints nothing. The timer does not keep the process alive, so a setup that can
 * never settle still ends as `STALLED` (stall.ts).
 */
export function slowSetupWatch({ afterMs, file, entries, then, say }: SlowSetupWatch): OnConfigStage {
  return (stage) => {
    if (stage.kind !== 'plugin-setup') return undefined
    const where = pluginWhere(stage, file, entries)
    const timer = setTimeout(() => {
      say(`still waiting for the setup of plugin "${stage.plugin}" (${where}) after ${duration(afterMs)}: ${then} once every plugin's setup has finished (Ctrl+C stops it)`)
    }, afterMs)
    timer.unref()
    return () => clearTimeout(timer)
  }
}

/** `50 ms`, `5 s`. */
export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}
