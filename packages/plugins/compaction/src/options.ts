import type { AdapterDefinition, JsonSchema, ModelAdapter, PluginContext } from '@bosun/core'

/**
 * The options of the compaction plugin, as a config file gives them:
 * `['compaction', { contextWindow: 128000 }]`.
 */
export interface Options {
  /** The model's context window, in tokens. Default 128000. */
  contextWindow?: number
  /** Compact before a request whose estimated size exceeds this share of `contextWindow`. Default 0.8. */
  thresholdRatio?: number
  /**
   * How much recent history a compaction keeps verbatim, as a share of `contextWindow` (or of the
   * current history, when that is smaller). Must be below `thresholdRatio`. Default 0.25.
   */
  retainRatio?: number
  /**
   * The model that writes summaries, given like the config's `model`: in a config file an adapter
   * name with options (`{ adapter: 'openai', options: { model: 'gpt-4o-mini', apiKeyEnv: … } }`,
   * which the config loader resolves to the adapter's definition); in code a `ModelAdapter`, or
   * an adapter definition (a package's default export) created with `options`. Default: the
   * agent's own adapter.
   */
  model?: { adapter: ModelAdapter | AdapterDefinition; options?: Record<string, unknown> }
}

/**
 * The JSON Schema of {@link Options}. Bosun validates a config's options against it (ajv, compiled
 * once) before `setup` runs, so a bad config fails at startup with `PLUGIN_OPTIONS_INVALID`
 * naming each JSON path. Keep it in step with the interface above.
 */
export const optionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    contextWindow: { type: 'integer', minimum: 64, default: 128_000, description: "The model's context window, in tokens." },
    thresholdRatio: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.8,
      description: 'Compact before a request estimated above this share of contextWindow.',
    },
    retainRatio: {
      type: 'number',
      minimum: 0,
      exclusiveMaximum: 1,
      default: 0.25,
      description: 'Share of contextWindow kept verbatim (the most recent steps); below thresholdRatio.',
    },
    // A model entry: a config file's adapter name is resolved by the config loader (checked like
    // the config's `model`) before this schema sees it; what reaches it is an object either way.
    model: {
      'x-bosun-model': true,
      type: 'object',
      description: 'The model that writes summaries: { adapter, options? } like the config\'s model. Default: the agent\'s adapter.',
      properties: { adapter: { type: 'object' }, options: { type: 'object' } },
      required: ['adapter'],
      additionalProperties: false,
    },
  },
  // retainRatio < thresholdRatio, either one counted at its default when left out: a compaction
  // that kept as much as the threshold would trigger the next one at once.
  'x-bosun-bounds': { retainRatio: { exclusiveMaximum: 'thresholdRatio' } },
  additionalProperties: false,
}

/** {@link Options} with the defaults filled in and the summary model created. */
export interface CompactionSettings {
  contextWindow: number
  thresholdRatio: number
  retainRatio: number
  /** The adapter that writes summaries; `undefined`: the one the agent (or the request) uses. */
  adapter: ModelAdapter | undefined
}

/**
 * Fills the defaults (the schema, `retainRatio` below `thresholdRatio` included, has checked the
 * options) and creates the summary adapter with the context's `createModel` (which checks the
 * shape of `model.adapter`: `INVALID_ARGUMENT`, which `createAgent` reports as
 * `PLUGIN_SETUP_FAILED` — at startup).
 */
export async function resolveSettings(options: Options, createModel: PluginContext['createModel']): Promise<CompactionSettings> {
  const { contextWindow = 128_000, thresholdRatio = 0.8, retainRatio = 0.25, model } = options
  return { contextWindow, thresholdRatio, retainRatio, adapter: model === undefined ? undefined : await createModel(model) }
}
