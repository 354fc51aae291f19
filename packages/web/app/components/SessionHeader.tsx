import { useMemo } from 'react'
import { isQueuePaused, isQueueWaiting, queueRunsOnResume } from '../state/select.js'
import { MESSAGE_BOX_ID } from './Composer.js'
import { LastActivity } from './LastActivity.js'
import { RemoveSession } from './RemoveSession.js'
import { StatusBadge } from './StatusBadge.js'
import { useApp } from './store-context.js'

/** The session's id, first prompt and status, and Stop / Stop and clear queue / the paused queue's Resume / Run now for input nothing started or a shutdown left / Remove…. */
export function SessionHeader() {
  const id = useApp((state) => state.selected)
  const status = useApp((state) => state.view.status)
  const paused = useApp((state) => isQueuePaused(state.view))
  const waiting = useApp((state) => isQueueWaiting(state.view))
  const onResume = useApp((state) => queueRunsOnResume(state.view))
  const stop = useApp((state) => state.stop)
  const resume = useApp((state) => state.resume)
  const inspect = useApp((state) => state.inspect)
  const lastTime = useApp((state) => state.view.events.at(-1)?.time)
  // From the session list (the host stream's rows): looked up when the list or the session changes, not per event.
  const sessions = useApp((state) => state.sessions)
  const firstPrompt = useMemo(() => sessions.find((item) => item.id === id)?.firstPrompt ?? null, [sessions, id])
  const running = status === 'running'
  // Stop is disabled once the turn has stopped, which takes the focus off it — onto nothing, so the
  // next Tab would start again at the top of the page: it goes to the Message box first.
  const stopFrom = (keepQueue: boolean): void => {
    document.getElementById(MESSAGE_BOX_ID)?.focus()
    void stop(keepQueue)
  }
  // Resume leaves the page with the paused notice once the queue runs: the same move, for the same reason.
  const resumeFrom = (): void => {
    document.getElementById(MESSAGE_BOX_ID)?.focus()
    void resume()
  }
  return (
    <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-slate-300 bg-white px-4 py-2">
      <div className="flex min-w-0 flex-1 basis-64 flex-col gap-0.5">
        <div className="flex min-w-0 items-center gap-3">
          <h1 className="min-w-0 truncate text-base font-semibold" title={id ?? undefined}>
            {id}
          </h1>
          <StatusBadge status={status} />
          {lastTime === undefined ? null : (
            <span className="shrink-0 text-xs text-slate-600">
              last activity <LastActivity at={lastTime} />
            </span>
          )}
        </div>
        {/* What a person knows the session by, under its id: its first prompt, as the list shows it. */}
        {firstPrompt ? (
          <p className="min-w-0 truncate text-sm text-slate-700" title={firstPrompt}>
            {firstPrompt}
          </p>
        ) : null}
      </div>
      <div className="ml-auto flex flex-wrap items-center gap-2 whitespace-nowrap">
        {paused ? (
          <span role="status" className="flex items-center gap-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-sm text-amber-950">
            Queue paused
            <button type="button" onClick={resumeFrom} className="rounded bg-amber-700 px-2 py-0.5 text-white hover:bg-amber-800">
              Resume
            </button>
          </span>
        ) : null}
        {onResume ? (
          <span role="status" className="flex items-center gap-2 rounded border border-sky-300 bg-sky-50 px-2 py-1 text-sm text-sky-950" title="The host shut down while the last turn ran (not a Stop): the queued input runs as soon as the session is opened again — by Run now, a new message or a change to the queue">
            Queue runs when the session resumes
            <button type="button" onClick={resumeFrom} className="rounded bg-sky-700 px-2 py-0.5 text-white hover:bg-sky-800">
              Run now
            </button>
          </span>
        ) : null}
        {waiting ? (
          <span role="status" className="flex items-center gap-2 rounded border border-sky-300 bg-sky-50 px-2 py-1 text-sm text-sky-950" title="Queued input that nothing started: it runs with your next message, or now">
            Queued, not running
            <button type="button" onClick={resumeFrom} className="rounded bg-sky-700 px-2 py-0.5 text-white hover:bg-sky-800">
              Run now
            </button>
          </span>
        ) : null}
        <button type="button" disabled={!running} onClick={() => stopFrom(true)} className="rounded border border-slate-400 px-3 py-1 text-sm hover:bg-slate-100 disabled:opacity-50" title="Stops the running turn; queued messages stay, paused">
          Stop
        </button>
        <button type="button" disabled={!running} onClick={() => stopFrom(false)} className="rounded border border-red-400 px-3 py-1 text-sm text-red-800 hover:bg-red-50 disabled:opacity-50">
          Stop and clear queue
        </button>
        <button type="button" onClick={() => inspect(-1)} className="rounded border border-slate-400 px-3 py-1 text-sm hover:bg-slate-100">
          Inspector
        </button>
        {id === null ? null : <RemoveSession id={id} />}
      </div>
    </header>
  )
}
