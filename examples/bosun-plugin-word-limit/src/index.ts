/**
 * bosun-plugin-word-limit — an example of a third-party pre-step plugin, published outside the
 * @bosun scope and named in a config file by its short name: `plugins: [['word-limit', { maxWords: 200 }]]`.
 */
import { createUserMessage, definePlugin, messageText, type UserMessage } from '@bosun/core'
import { wordLimitSchema, type WordLimitOptions } from './options.js'

export type { WordLimitOptions } from './options.js'
export { wordLimitSchema } from './options.js'

const words = (text: string) => text.split(/\s+/).filter(Boolean)

export default definePlugin<WordLimitOptions>({
  name: 'word-limit',
  schema: wordLimitSchema,
  setup({ hooks }, { maxWords, action = 'reject' }) {
    hooks.preStep.tapPromise('word-limit', async (decision) => {
      if (decision.kind !== 'enter') return decision
      const long = decision.messages.find((message) => words(messageText(message)).length > maxWords)
      if (!long) return decision
      if (action === 'reject') {
        return { kind: 'reject', metadata: { messageId: long.id, words: words(messageText(long)).length, maxWords } }
      }
      // Truncate: the message keeps its id and source (the id is the sender's receipt).
      const cut = (message: UserMessage) =>
        words(messageText(message)).length > maxWords
          ? createUserMessage(`${words(messageText(message)).slice(0, maxWords).join(' ')} …`, { id: message.id, source: message.source })
          : message
      return { kind: 'enter', messages: decision.messages.map(cut) }
    })
  },
})
