import { createUserMessage, forkSeed, LOG_FORMAT_VERSION, type Agent, type Delegation, type NewSession, type PluginContext, type SessionEvent, type SessionHeader, type TurnEndReason, type UserMessage } from '@bosun/core'

/** What a child's session is made from: the same at spawn and when recovery adopts a child the crash left unmade. */
export interface ChildSpec {
  childId: string
  delegation: Delegation
  context?: 'fresh' | 'fork'
  /** For `fork`: seed with the parent's turns up to this one (default: its last ended turn). */
  afterTurn?: number
}

/**
 * What the child's session is made from — its header with `delegation`, and for `context: 'fork'`
 * the parent's completed turns as its seed — for `createAgent`'s `newSession`: the child's agent is
 * built on it, and the store creates it only once the child's plugin setups passed, so a refused
 * child leaves no session behind (its parent's `subagent/settled` says it failed).
 */
export async function newChildSession(ctx: PluginContext, spec: ChildSpec): Promise<NewSession> {
  const { childId: id, delegation } = spec
  if (spec.context === 'fork') {
    await ctx.session.flush()
    return forkSeed(ctx.store, ctx.session.header.id, {
      id, delegation, now: ctx.now, ...(spec.afterTurn === undefined ? {} : { afterTurn: spec.afterTurn }),
    })
  }
  return { header: { id, version: LOG_FORMAT_VERSION, createdAt: ctx.now(), delegation } }
}

/** A stored session as read (without keeping it open), or `undefined` when the store has none. */
export async function peekSession(ctx: PluginContext, id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[] } | undefined> {
  if (ctx.store.read) return ctx.store.read(id)
  const stored = await ctx.store.open(id)
  if (stored) await stored.writer.close()
  return stored
}

/** Nothing after the fork seed: the session was made, but the task never reached its inbox. */
export const hasNoOwnEvents = (session: { header: SessionHeader; events: readonly SessionEvent[] }) =>
  session.events.length <= (session.header.seedLength ?? 0)

/** The longest error message a settlement quotes: a provider's body can be long, the code and its gist are what the model needs. */
const MAX_ERROR_TEXT = 300

/**
 * How a child's turn ended, for its parent's model: the kind, and for an error its code and
 * message (already redacted in the log: `serializeError`), for a blocked turn the plugin — what
 * the model needs to choose between trying again and doing the work another way. Only the kind
 * when that is all that is known (a record written by `subagent/settled`).
 */
export function endedHow(reason: TurnEndReason | TurnEndReason['kind']): string {
  if (typeof reason === 'string') return reason
  if (reason.kind === 'error' && reason.error) {
    const message = [...reason.error.message]
    const text = message.length > MAX_ERROR_TEXT ? `${message.slice(0, MAX_ERROR_TEXT).join('')}…` : reason.error.message
    return `error: ${reason.error.code}: ${text}`
  }
  if (reason.kind === 'blocked') return `blocked by ${reason.by}`
  return reason.kind
}

/** The text of a settle message: who settled and how, then the answer. */
export function settleText(childId: string, profile: string | undefined, epoch: number, reason: TurnEndReason | TurnEndReason['kind'], answer: string): string {
  const who = profile ? `${profile} agent ${childId}` : `agent ${childId}`
  const kind = typeof reason === 'string' ? reason : reason.kind
  const how = kind === 'completed' ? 'finished' : `stopped (${endedHow(reason)})`
  return `[subagent] The ${who} ${how}, settlement ${epoch}.\n${answer}`
}

/** The header's `delegation` of a child this agent spawns in tool call `callId`. */
export function delegationOf(ctx: PluginContext, callId: string, depth: number, mode: 'foreground' | 'background'): Delegation {
  return { parentSessionId: ctx.session.header.id, callId, depth, mode: mode === 'foreground' ? 'one-shot' : 'continuable' }
}

/** The source of what this agent sends a child: the task, each `send_to_agent` message. */
export function parentSource(ctx: PluginContext, callId: string): UserMessage['source'] {
  return { kind: 'parent', parentSessionId: ctx.session.header.id, callId }
}

/** The task, verbatim, as the child's first follow-up: durable in the child before it is woken. */
export async function admitTask(ctx: PluginContext, child: Agent, task: string, callId: string): Promise<void> {
  const message = createUserMessage(task, { source: parentSource(ctx, callId) })
  child.inbox.splice('next-turn', child.inbox.nextTurn.length, 0, [message])
  await child.session.flush()
}
