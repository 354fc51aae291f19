import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** The workers import the built packages: build them (incremental, so quick when current). */
export function buildOnce(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-b', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
}

/** Kills per store: 50 by default (100 in all, as CI runs: the suite's share of a 15-minute run); `pnpm test:crash --kills N` raises it. */
export function killsFromEnv(): number {
  const kills = Number(process.env.BOSUN_CRASH_KILLS ?? 50)
  if (!Number.isSafeInteger(kills) || kills < 1) throw new Error(`BOSUN_CRASH_KILLS must be a positive integer, got ${process.env.BOSUN_CRASH_KILLS}`)
  return kills
}

/**
 * The campaign test's time limit: 15 s a kill (a kill's run takes about 1 s on a quiet machine and
 * up to 3 s at a load of 10), at least 15 minutes. Not a fixed limit: `pnpm test:crash --kills 2000`
 * hit the old fixed 900 s at kill ~300 on a loaded machine while nothing was wrong. The campaign has
 * no other watchdog, so a hung run still fails, after at most this long.
 */
export function campaignTimeoutMs(): number {
  return Math.max(900_000, killsFromEnv() * 15_000)
}

/** The campaign's seed: 1 by default; `pnpm test:crash --seed N` replays another campaign (a failure names its run's seed). */
export function seedFromEnv(): number {
  const seed = Number(process.env.BOSUN_CRASH_SEED ?? 1)
  if (!Number.isSafeInteger(seed) || seed < 1) throw new Error(`BOSUN_CRASH_SEED must be a positive integer, got ${process.env.BOSUN_CRASH_SEED}`)
  return seed
}
