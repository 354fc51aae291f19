import type { Tool } from '@bosun/core'
import type { Delegator, SpawnArgs } from './delegator.js'
import { DEFAULT_MAX_DEPTH, type Options } from './options.js'

/** Every tool this plugin adds: a child gets them whatever its profile's `tools` allowlist names. */
export const SUBAGENT_TOOL_NAMES = ['spawn_agent', 'send_to_agent', 'interrupt_agent', 'list_agents', 'report'] as const

/**
 * The tools a parent uses: spawn_agent, send_to_agent, interrupt_agent, list_agents. An agent at
 * `maxDepth` keeps spawn_agent (SPEC §12: children always get the subagent tools), and its
 * description says a spawn there is refused: a model told nothing spends a step finding out.
 */
export function parentTools(delegator: Delegator, options: Options): Tool[] {
  const profiles = Object.entries(options.agents ?? {})
  const profileLine = profiles.length
    ? ` Profiles for "agent": ${profiles.map(([name, p]) => (p.description ? `${name} (${p.description})` : name)).join('; ')}.`
    : ''
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH
  const depthLine = delegator.depth >= maxDepth
    ? ` You are at the deepest level allowed (depth ${delegator.depth}, maxDepth ${maxDepth}): spawn_agent is refused here; do the work yourself.`
    : ''
  const spawn: Tool<SpawnArgs> = {
    name: 'spawn_agent',
    description:
      'Delegate a task to a new child agent that works in its own session. mode "foreground" (default) waits and returns the ' +
      'child\'s answer as this tool\'s result; mode "background" returns the child id at once and the answer arrives later as a ' +
      'message (you can keep working, and continue the child with send_to_agent). context "fork" gives the child your ' +
      'conversation so far; "fresh" (default) gives it only the task, so write the task self-contained.' + profileLine + depthLine,
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['task'],
      properties: {
        task: { type: 'string', minLength: 1, description: 'What the child should do and what to report back.' },
        ...(profiles.length ? { agent: { type: 'string', enum: profiles.map(([name]) => name), description: 'Which kind of agent to spawn (default: one like you).' } } : {}),
        mode: { type: 'string', enum: ['foreground', 'background'], description: 'foreground: wait for the answer; background: return at once.' },
        context: { type: 'string', enum: ['fresh', 'fork'], description: 'fresh: only the task; fork: also your conversation so far.' },
      },
    },
    execute: (args, context) => delegator.spawn(args, context),
  }
  const send: Tool<{ childId: string; message: string }> = {
    name: 'send_to_agent',
    description: 'Give one of your background child agents more work: the message is queued as its next turn; its answer arrives later as a message.',
    parameters: {
      type: 'object', additionalProperties: false, required: ['childId', 'message'],
      properties: { childId: { type: 'string', description: 'The id spawn_agent returned.' }, message: { type: 'string', minLength: 1 } },
    },
    execute: ({ childId, message }, context) => delegator.send(childId, message, context),
  }
  const interrupt: Tool<{ childId: string }> = {
    name: 'interrupt_agent',
    description: 'Stop the current turn of one of your child agents; input queued for it stays queued. It settles and you get its partial answer.',
    parameters: { type: 'object', additionalProperties: false, required: ['childId'], properties: { childId: { type: 'string' } } },
    execute: ({ childId }) => delegator.interrupt(childId),
  }
  const list: Tool<Record<string, never>> = {
    name: 'list_agents',
    description: 'List your child agents, one JSON object per line: childId, agent, mode, status, live, settlements.',
    parameters: { type: 'object', additionalProperties: false, properties: {} },
    execute: () => delegator.list(),
  }
  return [spawn, send, interrupt, list]
}

/** The tool a child uses to hand its answer to the parent. It does not end the turn. */
export const reportTool: Tool<{ content: string }> = {
  name: 'report',
  description:
    'Give your parent agent your answer. The last report of your final turn is what the parent receives (otherwise your last ' +
    'message is). Reporting does not end your turn: finish with a short closing message.',
  parameters: { type: 'object', additionalProperties: false, required: ['content'], properties: { content: { type: 'string', description: 'The answer, complete and self-contained.' } } },
  execute: () => 'Reported. End your turn when you are done.',
}
