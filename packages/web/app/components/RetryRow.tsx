import { formatDuration } from '../state/select.js'
import type { RetryRow as Retry } from '../state/view.js'

/** A model request failed and is tried again after a delay. */
export function RetryRow({ retry }: { retry: Retry }) {
  return (
    <p role="note" className="rounded border border-yellow-300 bg-yellow-50 px-2 py-1 text-xs text-yellow-950">
      Retry: attempt {retry.attempt} after {formatDuration(retry.delayMs)} — {retry.error.code}: {retry.error.message}
    </p>
  )
}
