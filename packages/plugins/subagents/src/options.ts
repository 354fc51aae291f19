import type { JsonSchema, ModelEntry } from '@bosun/core'

/** A named kind of child (`spawn_agent {agent: '<name>'}`). */
export interface AgentProfile {
  /** The child's system prompt. Default: the parent's. */
  system?: string
  /** The child's model, shaped like the config's top-level `model`; each child gets a fresh adapter. Default: the parent's adapter. */
  model?: ModelEntry
  /** Which of the parent's tools the child gets, by name (exact, no patterns). Default: all. The subagent tools are always added. A name that is no tool is refused (`PLUGIN_OPTIONS_INVALID`). */
  tools?: string[]
  /** One line the model sees in `spawn_agent`'s description. */
  description?: string
}

export interface Options {
  agents?: Record<string, AgentProfile>
  /** Deepest allowed child: a top-level session has depth 0. Default 3. */
  maxDepth?: number
  /** Children of one parent that may be live (spawned or woken, not yet settled) at once. Default 4. */
  maxLiveChildren?: number
  /** A child a crash left mid-turn: reported to the parent as interrupted (`notify`), or woken if it still holds input (`resume`). Default `notify`. */
  onRecover?: 'notify' | 'resume'
}

export const DEFAULT_MAX_DEPTH = 3
export const DEFAULT_MAX_LIVE_CHILDREN = 4

/** The one source of truth for the options: validated by the core (ajv) before setup. */
export const optionsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    agents: {
      type: 'object',
      description: 'Named child profiles that spawn_agent {agent} selects.',
      propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          system: { type: 'string', description: "The child's system prompt (default: the parent's)." },
          model: { 'x-bosun-model': true, type: 'object', description: "The child's model, like the top-level model entry (default: the parent's adapter)." },
          tools: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, description: "Names of the parent's tools the child gets (default: all)." },
          description: { type: 'string', description: 'What this kind of child is for; shown to the model.' },
        },
      },
    },
    maxDepth: { type: 'integer', minimum: 0, maximum: 32, description: 'Deepest allowed child (top level is 0). Default 3.' },
    maxLiveChildren: { type: 'integer', minimum: 1, maximum: 1000, description: 'Live children per parent. Default 4.' },
    onRecover: { enum: ['notify', 'resume'], description: "A child a crash left mid-turn: 'notify' (default) settles it as interrupted, 'resume' wakes it if it still holds input." },
  },
}
