import { Composer } from './Composer.js'
import { MAIN_ID } from './focus-targets.js'
import { Inspector } from './Inspector.js'
import { LoginForm } from './LoginForm.js'
import { Notices } from './Notices.js'
import { QueueDock } from './QueueDock.js'
import { ReconnectBanner } from './ReconnectBanner.js'
import { SessionHeader } from './SessionHeader.js'
import { SessionList } from './SessionList.js'
import { Timeline } from './Timeline.js'
import { useApp } from './store-context.js'

/** The page: the session list on the left, the selected session's conversation on the right (or the login form, when the host wants its token). */
export function App() {
  const selected = useApp((state) => state.selected)
  const auth = useApp((state) => state.auth)
  const unavailable = useApp((state) => state.unavailable)
  if (auth === 'required') return <LoginForm />
  return (
    <div className="flex h-full flex-col bg-slate-50 text-slate-900 md:flex-row">
      <SessionList />
      {/* tabIndex -1: focusable from code only, the last place the focus goes when what had it leaves (Notices.tsx). */}
      <main id={MAIN_ID} tabIndex={-1} className="flex min-h-0 min-w-0 flex-1 flex-col" aria-label="Session">
        {selected === null ? (
          <div className="m-auto max-w-md p-8 text-center text-slate-600">
            <h1 className="mb-2 text-xl font-semibold text-slate-900">Bosun</h1>
            <p>Choose a session on the left, or start a new one.</p>
          </div>
        ) : unavailable !== null ? (
          <div className="m-auto max-w-md p-8 text-center text-slate-600">
            <h1 className="mb-2 text-xl font-semibold break-all text-slate-900">{selected}</h1>
            <p role="alert">{unavailable}</p>
          </div>
        ) : (
          <>
            <SessionHeader />
            <ReconnectBanner />
            <Timeline />
            <QueueDock />
            {/* One per session: what its box offers back is that session's (unsent.ts). */}
            <Composer key={selected} session={selected} />
          </>
        )}
      </main>
      <Notices />
      <Inspector />
    </div>
  )
}
