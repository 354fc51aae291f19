/**
 * A wait the config loader cannot bound: code from the user's files runs, and may wait for
 * something that never happens — a config file's top-level `await`, a plugin's `setup`. A caller
 * that must say what it was waiting for when such a wait never ends (the CLI, whose process Node
 * ends with exit code 13 and no word once nothing is left running) learns of each through
 * `onStage`.
 */
export type ConfigStage =
  /** The config file's own code runs (TypeScript or JavaScript: its top level, awaits included). */
  | { kind: 'config-file'; file: string }
  /** `setup` of `plugins[index]` runs (`plugin`: the plugin's name). */
  | { kind: 'plugin-setup'; plugin: string; index: number }

/**
 * Called as a stage begins; the function it returns, if any, is called once the stage has settled
 * (resolved or thrown). Must not throw.
 */
export type OnConfigStage = (stage: ConfigStage) => (() => void) | void

/** Runs `wait` as `stage`, telling `onStage` (if any) when it begins and when it has settled. */
export async function inStage<T>(onStage: OnConfigStage | undefined, stage: ConfigStage, wait: () => Promise<T>): Promise<T> {
  const settled = onStage?.(stage)
  try {
    return await wait()
  } finally {
    settled?.()
  }
}
