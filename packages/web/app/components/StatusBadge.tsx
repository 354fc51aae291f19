const colours: Record<string, string> = {
  running: 'bg-emerald-100 text-emerald-900 border-emerald-300',
  maintenance: 'bg-violet-100 text-violet-900 border-violet-300',
  idle: 'bg-slate-100 text-slate-800 border-slate-300',
}

/** A session's status (idle, running, maintenance) as text, not colour alone. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`rounded border px-1.5 text-xs ${colours[status] ?? colours.idle}`}>{status}</span>
}
