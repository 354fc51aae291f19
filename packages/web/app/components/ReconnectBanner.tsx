import { downBecause, nextAttemptIn, waitAsked, whatToDo } from '../state/connection.js'
import { useApp } from './store-context.js'
import { useNow } from './use-now.js'

/** Says so while the stream is down, and why when the host refused it; the client resumes from the last seq by itself. */
export function ReconnectBanner() {
  const connection = useApp((state) => state.connection)
  if (connection.state !== 'reconnecting') return null
  return (
    <div role="status" className="border-b border-amber-300 bg-amber-100 px-4 py-2 text-sm text-amber-950">
      {downBecause(connection.refusal)} — reconnecting (attempt {connection.retries}){waitAsked(connection.refusal)}
      {connection.nextAttemptAt === undefined ? null : <Countdown key={connection.nextAttemptAt} at={connection.nextAttemptAt} />}.{whatToDo(connection.refusal)} Nothing is lost: the stream resumes after the last event shown.
    </div>
  )
}

/**
 * ": next attempt in n s", redrawn as the seconds go (mounted only while the banner shows, anew
 * for each wait, so its clock starts fresh). Not announced at each tick: the banner is a live
 * region, and a reader hearing every second could hear nothing else; the count is read with it.
 */
function Countdown({ at }: { at: number }) {
  const now = useNow(250)
  return <span aria-live="off">: {nextAttemptIn(at, now)}</span>
}
