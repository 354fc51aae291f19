// Test-only probes (excluded from the build): what an agent logged and reported, read without changing it.
import type { AgentStatus } from '../hooks.js'
import type { InboxSplice } from '../inbox/types.js'
import type { Agent } from '../loop/agent.js'
import type { SessionEvent } from '../session/events.js'

/** Resolves with the first event appended from now on that matches. */
export function nextEvent(agent: Agent, match: (event: SessionEvent) => boolean): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const off = agent.session.subscribe((event) => {
      if (match(event)) {
        off()
        resolve(event)
      }
    })
  })
}

/** An event filter by type. */
export const is = (type: string) => (event: SessionEvent) => event.type === type

/** Every status change the agent reports from now on. */
export function statuses(agent: Agent): AgentStatus[] {
  const seen: AgentStatus[] = []
  agent.hooks.status.tap('test', (status) => void seen.push(status))
  return seen
}

/** Lets every pending timer-free continuation run (several macrotask turns). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

/** Turn boundaries as `start N` / `end N`, to check that turns never overlap. */
export function turnBoundaries(agent: Agent): string[] {
  return agent.session.events
    .filter((e) => e.type === 'turn/start' || e.type === 'turn/end')
    .map((e) => `${e.type === 'turn/start' ? 'start' : 'end'} ${(e.data as { turn: number }).turn}`)
}

/** The splice event that inserted the message with this id. */
export function insertionOf(agent: Agent, id: string): InboxSplice {
  const event = agent.session.events.find(
    (e) => e.type === 'agent/inbox/spliced' && (e.data as InboxSplice).inserted.some((m) => m.id === id),
  )
  if (!event) throw new Error(`no splice inserted ${id}`)
  return event.data as InboxSplice
}
