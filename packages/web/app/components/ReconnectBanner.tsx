import { downBecause, waitAsked } from '../state/connection.js'
import { useApp } from './store-context.js'

/** Says so while the stream is down, and why when the host refused it; the client resumes from the last seq by itself. */
export function ReconnectBanner() {
  const connection = useApp((state) => state.connection)
  if (connection.state !== 'reconnecting') return null
  return (
    <div role="status" className="border-b border-amber-300 bg-amber-100 px-4 py-2 text-sm text-amber-950">
      {downBecause(connection.refusal)} — reconnecting (attempt {connection.retries}){waitAsked(connection.refusal)}. Nothing is lost: the stream resumes after the last event shown.
    </div>
  )
}
