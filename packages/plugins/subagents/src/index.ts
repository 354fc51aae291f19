import { definePlugin, offerChildOpener } from '@bosun/core'
import { Delegator } from './delegator.js'
import { SUBAGENT_EVENTS } from './events.js'
import { optionsSchema, type Options } from './options.js'
import { checkProfileTools } from './profile-tools.js'
import { parentTools, reportTool } from './tools.js'

export { optionsSchema, DEFAULT_MAX_DEPTH, DEFAULT_MAX_LIVE_CHILDREN } from './options.js'
export type { AgentProfile, Options } from './options.js'
export { SubagentError, SubagentErrorCodes, type SubagentErrorCode } from './errors.js'
export type { SubagentSent, SubagentSettled, SubagentSpawned } from './events.js'
export { foldChild, type ChildState, type Settlement } from './fold.js'

/**
 * subagents: lets the model delegate to child agents. A child is an ordinary session in the
 * agent's store (header `delegation {parentSessionId, callId, depth, mode}`), built from the
 * agent's own config or a named profile. A background child's every settlement reaches the
 * parent as one durable message `settle:<childId>:<epoch>` — a crash cannot lose it, and a
 * repeat is refused as a duplicate id.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({ plugins: [['subagents', { agents: { researcher: { system: 'Research; report facts.' } } }]] })
 */
export default definePlugin<Options>({
  name: 'subagents',
  schema: optionsSchema,
  events: SUBAGENT_EVENTS,
  async setup(ctx, options) {
    // A profile's tools entry that names no tool fails the agent's creation (bosun config check
    // too): checked once every plugin's setup is done, so a tool a later plugin adds counts.
    checkProfileTools(ctx, options)
    const delegator = new Delegator(ctx, options)
    for (const tool of parentTools(delegator, options)) ctx.addTool(tool)
    if (ctx.session.header.delegation) ctx.addTool(reportTool)
    // A host asked about one of this agent's children builds it through here (with its profile).
    offerChildOpener(ctx.store, ctx.session.header.id, (childId) => delegator.openFor(childId))
    ctx.hooks.canceled.tap(ctx.name, () => delegator.cancelAll())
    ctx.onClose(() => delegator.closeAll())
    ctx.onStopAfterTurn(() => delegator.stopAllAfterTurn())
    await delegator.recover()
    // A settlement can start a turn: not before every later plugin's setup tapped its hooks.
    ctx.onReady(() => delegator.ready())
  },
})
