import { useApp } from './store-context.js'

/** Short messages about the last actions ("kept queued", a refused edit). */
export function Notices() {
  const notices = useApp((state) => state.notices)
  const dismiss = useApp((state) => state.dismiss)
  return (
    <div aria-live="polite" className="pointer-events-none fixed right-4 bottom-28 flex w-96 max-w-[calc(100vw-2rem)] flex-col gap-2">
      {notices.map((notice) => (
        <div key={notice.id} role={notice.kind === 'error' ? 'alert' : 'status'} className={`pointer-events-auto flex items-start gap-2 rounded border p-3 text-sm shadow ${notice.kind === 'error' ? 'border-red-300 bg-red-50 text-red-900' : 'border-sky-300 bg-sky-50 text-sky-950'}`}>
          <span className="flex-1">{notice.text}</span>
          <button type="button" className="rounded px-1 text-slate-700 hover:bg-white" onClick={() => dismiss(notice.id)} aria-label="Dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
