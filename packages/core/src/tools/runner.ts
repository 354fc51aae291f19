import { serializeError } from '../errors.js'
import type { AgentHooks } from '../hooks.js'
import type { Inbox } from '../inbox/inbox.js'
import type { ContentBlock, ToolCallBlock } from '../session/messages.js'
import { appendOwnedData, type Session } from '../session/session.js'
import type { Surface } from '../session/surface.js'
import { ABORTED, unlessAborted, type TurnAbort } from '../when-aborted.js'
import type { ToolRegistry } from './registry.js'
import { copyTextContent } from './result-copy.js'
import type { ToolResult, ToolReturn } from './types.js'

export interface ToolRunContext {
  turn: number
  step: number
  /** The turn's abort: `abort.signal` is what tools and hooks receive. */
  abort: TurnAbort
  session: Session
  inbox: Inbox
  surface: Surface
  hooks: AgentHooks
  registry: ToolRegistry
  /** Upper bound of calls running at once. */
  maxParallel: number
}

export interface ToolRunOutcome {
  results: ToolResult[]
  /** Every call asked to conclude the turn. */
  concludes: boolean
}

/** How long a running tool may take to settle after the turn is aborted before it is abandoned. */
export const ABORT_GRACE_MS = 200

const NOT_STARTED = 'The tool call was not started because the turn was aborted.'
const HOOK_ABORTED = 'The turn was aborted and the tool/result hook did not finish with this result in time; it is not shown.'
const ABANDONED = 'The turn was aborted while this tool was running; it may or may not have taken effect. Verify before repeating it.'

/**
 * Runs the calls of one step. Calls start in the model's order, at most `maxParallel` at once;
 * a tool with `parallel: false` runs alone. Each start appends `tool/call` and flushes (the
 * durable record that a side effect may have happened). Results are committed — `tool/result`
 * hook, then `tool/result` event — strictly in call order, even when a later call settles first.
 * After an abort no call starts; calls that never started get a synthetic error result.
 */
export async function runToolCalls(calls: readonly ToolCallBlock[], ctx: ToolRunContext): Promise<ToolRunOutcome> {
  if (calls.length === 1) return runOneCall(calls[0]!, ctx)
  const settled: (ToolResult | undefined)[] = new Array(calls.length)
  const running = new Set<Promise<void>>()
  let committed = 0
  const results: ToolResult[] = []

  const commitReady = async () => {
    while (committed < calls.length && settled[committed] !== undefined) {
      const call = calls[committed]!
      const result = settled[committed]!
      committed++
      results.push(await commitResult(call, result, ctx))
    }
  }

  let commitChain = Promise.resolve()
  const settle = (index: number, result: ToolResult) => {
    if (settled[index] !== undefined) return // an abandoned call that settled late
    settled[index] = result
    commitChain = commitChain.then(commitReady)
  }

  // Waits are raced against the abort with `unlessAborted` (a callback it removes), never with the
  // signal's shared abort promise: each race would leave a reaction on it for the rest of the turn.
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    const entry = ctx.registry.get(call.name)
    const exclusive = entry?.tool.parallel === false
    while (running.size > 0 && (exclusive || running.size >= ctx.maxParallel) && !ctx.abort.aborted) {
      await unlessAborted(Promise.race(running), ctx.abort)
    }
    if (ctx.abort.aborted) {
      for (let rest = index; rest < calls.length; rest++) settle(rest, errorResult(calls[rest]!, NOT_STARTED))
      break
    }
    const task = startCall(call, ctx).then((result) => settle(index, result))
    running.add(task)
    void task.finally(() => running.delete(task))
    if (exclusive) await unlessAborted(task, ctx.abort)
  }
  // Wait for every call. After an abort, a call that honours its signal settles promptly and keeps
  // its real result; one that ignores it for longer than the grace period is recorded as abandoned.
  await unlessAborted(Promise.all(running), ctx.abort, ABORT_GRACE_MS)
  for (let index = 0; index < calls.length; index++) {
    if (settled[index] === undefined) settle(index, errorResult(calls[index]!, ABANDONED))
  }
  await commitChain
  return { results, concludes: results.length > 0 && results.every((result) => result.concludesTurn) }
}

/**
 * The common step, one call: what {@link runToolCalls} does for it, without the queue, the set of
 * running calls and the commit chain (a third of the runner's cost per turn was that machinery).
 */
async function runOneCall(call: ToolCallBlock, ctx: ToolRunContext): Promise<ToolRunOutcome> {
  let result: ToolResult
  if (ctx.abort.aborted) result = errorResult(call, NOT_STARTED)
  else {
    const outcome = await unlessAborted(startCall(call, ctx), ctx.abort, ABORT_GRACE_MS)
    result = outcome === ABORTED ? errorResult(call, ABANDONED) : outcome
  }
  result = await commitResult(call, result, ctx)
  return { results: [result], concludes: result.concludesTurn }
}

/** The `tool/result` waterfall over one settled call, then its `tool/result` event; returns what was logged. */
async function commitResult(call: ToolCallBlock, settled: ToolResult, ctx: ToolRunContext): Promise<ToolResult> {
  let result = settled
  try {
    if (ctx.hooks.toolResult.taps.length > 0) {
      const hooked = await unlessAborted(ctx.hooks.toolResult.promise(result, {
        turn: ctx.turn, step: ctx.step, signal: ctx.abort.signal, session: ctx.session, inbox: ctx.inbox, surface: ctx.surface,
        call: { callId: call.id, name: call.name, arguments: call.arguments },
      }), ctx.abort, ABORT_GRACE_MS)
      // Not the raw result: the hook may exist to redact it.
      result = hooked === ABORTED ? errorResult(call, HOOK_ABORTED) : hooked
    }
  } catch (error) {
    result = errorResult(call, `A tool/result hook failed: ${serializeError(error).message}`)
  }
  // Text-only content (a tool that returned a string, every error result) is copied by a
  // fixed-shape literal and appended as owned data: the call's id and name are strings the
  // assembler checked. Anything else takes the general copy. The same event either way.
  const content = copyTextContent(result.content)
  if (content === undefined) {
    ctx.session.append('tool/result', {
      turn: ctx.turn, step: ctx.step, callId: call.id, name: call.name, content: result.content,
      ...(result.isError ? { isError: true } : {}),
    })
  } else if (result.isError) {
    appendOwnedData(ctx.session, 'tool/result', { turn: ctx.turn, step: ctx.step, callId: call.id, name: call.name, content, isError: true })
  } else {
    appendOwnedData(ctx.session, 'tool/result', { turn: ctx.turn, step: ctx.step, callId: call.id, name: call.name, content })
  }
  return result
}

async function startCall(call: ToolCallBlock, ctx: ToolRunContext): Promise<ToolResult> {
  try {
    // Owned data: the call's id, name and arguments are strings the assembler checked.
    appendOwnedData(ctx.session, 'tool/call', { turn: ctx.turn, step: ctx.step, callId: call.id, name: call.name, arguments: call.arguments })
    const entry = ctx.registry.get(call.name)
    if (!entry) {
      const known = ctx.registry.names
      return errorResult(call, `There is no tool named "${call.name}".${known.length ? ` Available tools: ${known.join(', ')}.` : ''}`)
    }
    const parsed = ctx.registry.parseArguments(entry, call.arguments)
    if (!parsed.ok) return errorResult(call, parsed.message)
    await ctx.session.flush()
    if (ctx.abort.aborted) return errorResult(call, NOT_STARTED)
    const value = await entry.tool.execute(parsed.args, { signal: ctx.abort.signal, callId: call.id, turn: ctx.turn, step: ctx.step })
    return normalise(call, value, entry.tool.concludesTurn === true)
  } catch (error) {
    return errorResult(call, `The tool "${call.name}" failed: ${serializeError(error).message}`)
  }
}

function normalise(call: ToolCallBlock, value: ToolReturn, concludes: boolean): ToolResult {
  if (typeof value === 'string') return result(call, [{ type: 'text', text: value }], false, [], concludes)
  if (Array.isArray(value)) return result(call, value, false, [], concludes)
  if (typeof value === 'object' && value !== null && 'content' in value) {
    const content = typeof value.content === 'string' ? [{ type: 'text' as const, text: value.content }] : value.content
    return result(call, content, value.isError === true, value.additionalContexts ?? [], value.concludesTurn ?? concludes)
  }
  return errorResult(call, `The tool "${call.name}" returned ${value === undefined ? 'nothing' : typeof value}; a tool must return a string, content blocks or { content }.`)
}

function result(call: ToolCallBlock, content: ContentBlock[], isError: boolean, additionalContexts: ToolResult['additionalContexts'], concludesTurn: boolean): ToolResult {
  return { callId: call.id, name: call.name, content, isError, additionalContexts, concludesTurn }
}

function errorResult(call: ToolCallBlock, message: string): ToolResult {
  return result(call, [{ type: 'text', text: message }], true, [], false)
}
