import { definePlugin, Stage } from '@bosun/core'
import { Compactor } from './compactor.js'
import { recoverContextWindow } from './context-window.js'
import { optionsSchema, resolveSettings, type Options } from './options.js'

export { optionsSchema } from './options.js'
export type { Options } from './options.js'
export { CHARS_PER_TOKEN, IMAGE_CHARS } from './estimate.js'
export { SUMMARY_PREFIX, SUMMARY_SYSTEM_PROMPT } from './summarize.js'

/**
 * compaction: keeps the model-visible history inside the model's context window by replacing
 * its older part with a summary the model writes — before a request estimated above
 * `thresholdRatio × contextWindow`, after a `CONTEXT_WINDOW_EXCEEDED` failure (then the request
 * is sent once more), and on `agent.compact()`. It writes `compaction/start`,
 * `compaction/summary {summary, firstKeptSeq}` and `compaction/end`; the log keeps everything.
 *
 * Taps: `prepareCall` at `Stage.first` (later taps see the compacted history), `llm/stream` at
 * `Stage.early` (outside a retry plugin at `Stage.first`, inside output filters) and `agent/compact`.
 *
 * @example
 * // bosun.config.ts — summaries written by a cheaper model, named like the config's own `model`
 * export default defineConfig({
 *   plugins: ['retry', ['compaction', { contextWindow: 128000, model: { adapter: 'openai', options: { model: 'gpt-4o-mini' } } }]],
 * })
 */
export default definePlugin<Options>({
  name: 'compaction',
  schema: optionsSchema,
  async setup({ hooks, name, session, createModel }, options) {
    const settings = await resolveSettings(options, createModel)
    const compactor = new Compactor(session, settings)
    hooks.event.tap(name, (event) => compactor.observe(event))

    hooks.prepareCall.tapPromise({ name, stage: Stage.first }, async (request, context) => {
      if (compactor.estimateTokens(request, context.surface) <= settings.thresholdRatio * settings.contextWindow) return request
      const { surface, signal } = context
      const result = await compactor.run({ reason: 'threshold', surface, adapter: settings.adapter ?? context.adapter, signal, avoidRepeatingFailure: true })
      return result.ok ? { ...request, messages: surface.messages } : request
    })

    hooks.llmStream.tap({ name, stage: Stage.early }, (stream, context) =>
      recoverContextWindow(stream, context, compactor, settings.adapter ?? context.adapter))

    hooks.compact.tapPromise(name, async (context) => {
      const { reason, surface, signal } = context
      const result = await compactor.run({ reason, surface, adapter: settings.adapter ?? context.adapter, signal })
      await context.session.flush()
      return result.ok ? true : undefined
    })
  },
})
