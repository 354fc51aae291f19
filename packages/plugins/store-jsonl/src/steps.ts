/**
 * Which step of a file operation an error came from, attached to the error itself: the store's
 * errors name their real step (`details.step`), and a failure deep in a rollback or in the store
 * journal must not be reported as the step its caller was at. The innermost step wins.
 */
const steps = new WeakMap<object, string>()

/** Marks `error` as coming from `step` unless an inner step marked it already; returns it (to throw). */
export function atStep(error: unknown, step: string): unknown {
  if (typeof error === 'object' && error !== null && !steps.has(error)) steps.set(error, step)
  return error
}

/** Marks `error` as coming from `step`, replacing an inner step (a step that names the whole of what failed). */
export function renameStep(error: unknown, step: string): unknown {
  if (typeof error === 'object' && error !== null) steps.set(error, step)
  return error
}

/** The step `error` was marked with, else `fallback`. */
export function stepOf(error: unknown, fallback: string): string {
  return (typeof error === 'object' && error !== null && steps.get(error)) || fallback
}

/** Runs `operation`; its rejection is marked with `step`. */
export async function step<T>(name: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation()
  } catch (error) {
    throw atStep(error, name)
  }
}
