import { definePlugin, messageText, type PreStepDecision } from '@bosun/core'
import { optionsSchema, type Options } from './options.js'

export { optionsSchema } from './options.js'
export type { Options } from './options.js'

/**
 * {{name}}: a pre-step plugin that rejects a step when one of its messages contains a configured
 * word. The rejection's metadata names the word and the message, so a UI can say why; the
 * rejected input is not re-queued.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({ plugins: [['{{configName}}', { words: ['password'] }]] })
 */
export default definePlugin<Options>({
  name: '{{name}}',
  schema: optionsSchema,
  setup({ hooks, name }, { words, ignoreCase = true }) {
    const fold = (text: string) => (ignoreCase ? text.toLowerCase() : text)
    const needles = words.map((word) => ({ word, folded: fold(word) }))
    // Tap with the plugin's name: a rejection is attributed to it (`by`), and so is a throw. The
    // return type lets each `return` carry metadata of its own shape (another reason to reject).
    hooks.preStep.tapPromise(name, async (decision): Promise<PreStepDecision> => {
      // Only `enter` reaches this tap: the core passes an earlier plugin's reject straight through.
      if (decision.kind !== 'enter') return decision
      for (const message of decision.messages) {
        const text = fold(messageText(message))
        const hit = needles.find(({ folded }) => text.includes(folded))
        if (hit) return { kind: 'reject', metadata: { reason: 'blocked-word', word: hit.word, messageId: message.id } }
      }
      return decision
    })
  },
})
