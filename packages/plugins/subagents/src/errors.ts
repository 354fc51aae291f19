/** Stable codes of the errors this plugin's tools return to the model (and throws to callers). */
export const SubagentErrorCodes = {
  /** The child would be deeper than `maxDepth`. */
  DEPTH_EXCEEDED: 'SUBAGENT_DEPTH_EXCEEDED',
  /** This parent already has `maxLiveChildren` live children. */
  TOO_MANY_LIVE: 'SUBAGENT_TOO_MANY_LIVE',
  /** The id is not a child of this session (an agent can address only its own children). */
  UNKNOWN_CHILD: 'SUBAGENT_UNKNOWN_CHILD',
  /** `agent` names no profile of the plugin's options. */
  UNKNOWN_PROFILE: 'SUBAGENT_UNKNOWN_PROFILE',
  /** The child could not be started (its spawn failed, or recovery could not make it): it takes no messages. */
  NOT_STARTED: 'SUBAGENT_NOT_STARTED',
  /** A one-shot (foreground) child was closed after its answer; it takes no more messages. */
  ONE_SHOT: 'SUBAGENT_ONE_SHOT',
} as const

export type SubagentErrorCode = (typeof SubagentErrorCodes)[keyof typeof SubagentErrorCodes]

export class SubagentError extends Error {
  readonly code: SubagentErrorCode
  constructor(code: SubagentErrorCode, message: string) {
    super(`${code}: ${message}`)
    this.name = 'SubagentError'
    this.code = code
  }
}
