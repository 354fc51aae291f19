import type { ModelMessage } from '../model.js'
import type { BosunEventMap, SessionEvent } from './events.js'
import type { Session } from './session.js'

/**
 * The model-visible history, a projection of the log maintained incrementally: each event costs
 * O(1), so the work per step never grows with the length of the history. `messages` is
 * append-only and is handed to the model request without a copy.
 */
export class Surface {
  readonly #messages: ModelMessage[] = []

  /** Builds the surface from the whole log (seed included) and keeps it current. */
  static attach(session: Session): Surface {
    const surface = new Surface()
    for (const event of session.events) surface.apply(event)
    session.project((event) => surface.apply(event))
    return surface
  }

  get messages(): readonly ModelMessage[] {
    return this.#messages
  }

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'user/message': {
        const message = event.data as BosunEventMap['user/message']
        this.#messages.push(Object.freeze({ role: 'user', id: message.id, content: message.content }))
        break
      }
      case 'assistant/message': {
        const { message } = event.data as BosunEventMap['assistant/message']
        if (message.content.length === 0) break
        this.#messages.push(message)
        break
      }
      case 'tool/result': {
        const result = event.data as BosunEventMap['tool/result']
        // `name` travels on the result: a call that never started has no tool/call to take it from.
        const name = result.name
        this.#messages.push(
          Object.freeze({
            role: 'tool',
            callId: result.callId,
            name,
            content: result.content,
            ...(result.isError ? { isError: true } : {}),
          }),
        )
        break
      }
    }
  }
}
