import { useId, useState, type FormEvent } from 'react'
import { useApp } from './store-context.js'

/**
 * The screen of a host that requires a token: the token is sent once to `POST /v1/login` (through
 * the store and the client), which answers an HttpOnly cookie; the page then loads as usual. The
 * token lives only in this input while it is typed: it is cleared after each attempt and never
 * stored (no localStorage) or shown.
 */
export function LoginForm() {
  const login = useApp((state) => state.login)
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const ids = { title: useId(), input: useId(), error: useId(), help: useId() }

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault()
    if (busy || token === '') return
    setBusy(true)
    const refused = await login(token)
    setToken('')
    setBusy(false)
    setError(refused)
  }

  return (
    <main className="flex h-full items-center justify-center bg-slate-50 p-6 text-slate-900">
      <form onSubmit={(event) => void submit(event)} aria-labelledby={ids.title} className="flex w-full max-w-sm flex-col gap-3 rounded border border-slate-300 bg-white p-6 shadow-sm">
        <h1 id={ids.title} className="text-xl font-semibold">
          Log in to this Bosun host
        </h1>
        <p id={ids.help} className="text-sm text-slate-700">
          This host requires its token (<code>BOSUN_HOST_TOKEN</code> or the <code>--token-file</code> it was started with). The page keeps a login cookie, not the token.
        </p>
        <label htmlFor={ids.input} className="text-sm font-medium">
          Host token
        </label>
        <input
          id={ids.input}
          type="password"
          autoComplete="current-password"
          autoFocus
          value={token}
          onChange={(event) => setToken(event.target.value)}
          aria-invalid={error === null ? undefined : true}
          aria-describedby={error === null ? ids.help : `${ids.error} ${ids.help}`}
          className="rounded border border-slate-400 px-2 py-1.5 text-sm"
        />
        {error === null ? null : (
          <p id={ids.error} role="alert" className="rounded border border-red-300 bg-red-50 p-2 text-sm text-red-900">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || token === ''} className="rounded bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800 disabled:opacity-60">
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  )
}
