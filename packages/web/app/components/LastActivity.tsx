import { relativeTime } from '../state/select.js'
import { useNow } from './use-now.js'

/** When something last happened, as "2 min ago", with the date and time in the tooltip (and `dateTime` for machines). */
export function LastActivity({ at, className }: { at: number; className?: string }) {
  const now = useNow()
  return (
    <time dateTime={new Date(at).toISOString()} title={`last activity: ${new Date(at).toLocaleString()}`} className={className}>
      {relativeTime(at, now)}
    </time>
  )
}
