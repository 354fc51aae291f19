import { useMemo, useState } from 'react'
import type { SessionListItem } from '@bosun/host/client'
import { downBecause, waitAsked, whatToDo } from '../state/connection.js'
import { NEW_SESSION_ID } from './focus-targets.js'
import { LastActivity } from './LastActivity.js'
import { StatusBadge } from './StatusBadge.js'
import { useApp } from './store-context.js'

interface Node { item: SessionListItem; children: Node[] }

/** The session a row is drawn under: a subagent's delegating parent, or the session a fork was made from. */
function parentOf(item: SessionListItem): string | undefined {
  return item.parentSessionId ?? item.parent
}

/** Subagents and forks go under their parent session (when it is listed); the rest are roots. Newest first. */
function tree(items: readonly SessionListItem[]): Node[] {
  const nodes = new Map(items.map((item) => [item.id, { item, children: [] as Node[] }]))
  const roots: Node[] = []
  for (const node of nodes.values()) {
    const parentId = parentOf(node.item)
    const parent = parentId === undefined ? undefined : nodes.get(parentId)
    if (parent === undefined) roots.push(node)
    else parent.children.push(node)
  }
  const order = (list: Node[]): Node[] => list.sort((a, b) => (b.item.createdAt ?? 0) - (a.item.createdAt ?? 0)).map((node) => ({ ...node, children: order(node.children) }))
  return order(roots)
}

/**
 * What waits in a session's queues, as the open session draws it: the follow-ups (the queue dock's
 * list, "3 queued") apart from the steering not yet seen by the model (drawn at the end of the
 * conversation, "1 steer pending") — one sum said "4 queued" beside a dock of 3.
 */
function waiting(item: SessionListItem): string[] {
  if (item.queue === null) return []
  const followups = item.queue['next-turn']
  const steers = item.queue['next-step']
  return [...(followups > 0 ? [`${followups} queued`] : []), ...(steers > 0 ? [`${steers} ${steers === 1 ? 'steer' : 'steers'} pending`] : [])]
}

/** Says so while the list is not live (its host stream dropped or refused, or stopped for good), and why; nothing while it is live. */
function ListNotLive() {
  const connection = useApp((state) => state.listConnection)
  if (connection.state !== 'reconnecting' && connection.state !== 'stopped') return null
  const why = connection.state === 'stopped' ? `stopped: ${lowerFirst(connection.why ?? 'Reload the page to follow the host again.')}` : `reconnecting (attempt ${connection.retries})${waitAsked(connection.refusal)}: ${lowerFirst(downBecause(connection.refusal))}.${whatToDo(connection.refusal)}`
  return (
    <p role="status" className="rounded border border-amber-300 bg-amber-100 px-2 py-1 text-xs text-amber-950">
      List not live — {why}
    </p>
  )
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1)
}

/** The sessions of the host, live from the host stream: id and first prompt, status, queued count, last activity; search by either; new session. */
export function SessionList() {
  const sessions = useApp((state) => state.sessions)
  const selected = useApp((state) => state.selected)
  const select = useApp((state) => state.select)
  const createSession = useApp((state) => state.createSession)
  const loggedIn = useApp((state) => state.loggedIn)
  const logout = useApp((state) => state.logout)
  // The open session's own stream sees every event; the host stream only its status and queue changes.
  const openLast = useApp((state) => state.view.events.at(-1)?.time)
  const [query, setQuery] = useState('')
  const shown = useMemo(() => {
    const needle = query.trim().toLowerCase()
    return tree(needle === '' ? sessions : sessions.filter((item) => item.id.toLowerCase().includes(needle) || (item.firstPrompt ?? '').toLowerCase().includes(needle)))
  }, [sessions, query])
  const noMatch = shown.length === 0 && query.trim() !== '' ? `No session id or first prompt contains "${query.trim()}".` : null

  const row = (node: Node, depth: number) => {
    const { item } = node
    const queues = waiting(item)
    const last = item.id === selected && openLast !== undefined ? Math.max(openLast, item.lastEventAt ?? 0) : item.lastEventAt
    return (
      <li key={item.id}>
        <button
          type="button"
          onClick={() => select(item.id)}
          aria-current={item.id === selected ? 'true' : undefined}
          className={`flex w-full flex-col gap-0.5 rounded px-2 py-1.5 text-left text-sm hover:bg-slate-200 ${item.id === selected ? 'bg-slate-200' : ''}`}
          style={{ paddingLeft: `${0.5 + depth}rem` }}
        >
          {/* The id first (a row's name starts with it), the first prompt — what a person knows the session by — under it. */}
          {item.firstPrompt ? (
            <>
              <span className="truncate font-mono text-xs text-slate-600">{item.id}</span>
              <span className="truncate font-medium" title={item.firstPrompt}>
                {item.firstPrompt}
              </span>
            </>
          ) : (
            <span className="truncate font-medium">{item.id}</span>
          )}
          <span className="flex items-center gap-2 text-xs text-slate-700">
            <StatusBadge status={item.status} />
            {queues.map((words) => (
              <span key={words}>{words}</span>
            ))}
            {last === null ? null : <LastActivity at={last} />}
            {item.loaded ? null : <span className="text-slate-600">cold</span>}
            {item.parent === undefined || item.parentSessionId !== undefined ? null : <span title={`forked from ${item.parent}`}>fork</span>}
          </span>
        </button>
        {node.children.length > 0 ? (
          <ul aria-label={`Children of ${item.id}`}>{node.children.map((child) => row(child, depth + 1))}</ul>
        ) : null}
      </li>
    )
  }

  return (
    // Above the session in a narrow window: at most a third of it, and less in a short one, where it leaves the
    // session's parts 30rem (header, a few lines of the conversation, the Message box) but keeps New session and
    // the search and a row of its list (9rem), which scrolls.
    <nav aria-label="Sessions" className="flex max-h-[min(35vh,max(9rem,100vh_-_30rem))] w-full shrink-0 flex-col gap-2 border-b border-slate-300 bg-slate-100 p-3 md:max-h-none md:w-72 md:border-r md:border-b-0">
      <button id={NEW_SESSION_ID} type="button" onClick={() => void createSession()} className="rounded bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800">
        New session
      </button>
      <label className="flex flex-col gap-1 text-xs text-slate-700">
        Search sessions
        <input type="search" value={query} onChange={(event) => setQuery(event.target.value)} className="rounded border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900" placeholder="id or first prompt…" />
      </label>
      <ListNotLive />
      {/* A search that matches nothing says so (announced, as the list's other notice is) instead of an empty list. */}
      {noMatch === null ? null : (
        <p role="status" className="px-2 text-sm text-slate-700">
          {noMatch}
        </p>
      )}
      <ul className="flex-1 overflow-y-auto" aria-label="Session list">
        {shown.map((node) => row(node, 0))}
      </ul>
      {loggedIn ? (
        <button type="button" onClick={() => void logout()} className="rounded border border-slate-400 px-3 py-1 text-sm hover:bg-slate-200">
          Log out
        </button>
      ) : null}
    </nav>
  )
}
