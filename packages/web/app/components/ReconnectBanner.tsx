import type { Refusal } from '../state/connection.js'
import { useApp } from './store-context.js'

/** Says so while the stream is down, and why when the host refused it; the client resumes from the last seq by itself. */
export function ReconnectBanner() {
  const connection = useApp((state) => state.connection)
  if (connection.state !== 'reconnecting') return null
  const refusal = connection.refusal
  const wait = refusal?.retryAfterMs === undefined ? '' : ` after the ${Math.ceil(refusal.retryAfterMs / 1000)} s it asked for`
  return (
    <div role="status" className="border-b border-amber-300 bg-amber-100 px-4 py-2 text-sm text-amber-950">
      {refusal === undefined ? 'Connection lost' : refused(refusal)} — reconnecting (attempt {connection.retries}){wait}. Nothing is lost: the stream resumes after the last event shown.
    </div>
  )
}

function refused(refusal: Refusal): string {
  if (refusal.code === 'too-many-streams') return 'The host is serving as many streams as it allows'
  return `The host answered ${refusal.status}${refusal.code === undefined ? '' : ` (${refusal.code})`}`
}
