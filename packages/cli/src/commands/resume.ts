import type { CommandContext } from '../context.js'
import { checkSessionId } from '../session-id.js'
import { startChat } from './chat.js'

/**
 * `bosun resume <id>`: the chat, on a session that exists. What was still queued is shown and
 * runs with the next message; a turn a crash left open was closed as interrupted when the
 * session opened.
 */
export async function resumeCommand(ctx: CommandContext, id: string, options: { raw?: boolean } = {}): Promise<number> {
  return startChat(ctx, checkSessionId(id), true, options.raw === true)
}
