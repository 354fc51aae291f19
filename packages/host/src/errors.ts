/** The stable error codes of the host (SPEC §10) and their HTTP statuses. */
export const HOST_ERROR_STATUS = {
  'session-not-found': 404,
  'message-not-found': 404,
  'queue-item-not-found': 404,
  'session-exists': 409,
  'session-locked': 409,
  'steer-unavailable': 409,
  'replay-unavailable': 409,
  'version-mismatch': 412,
  'invalid-request': 400,
  'unsupported-media-type': 415,
  'payload-too-large': 413,
  'not-authorized': 401,
  'forbidden-origin': 403,
  'not-found': 404,
  'internal-error': 500,
} as const

export type HostErrorCode = keyof typeof HOST_ERROR_STATUS

/** An error the host answers as `{ error: { code, message, details? } }` with the code's status. */
export class HostError extends Error {
  readonly code: HostErrorCode
  readonly details: unknown
  constructor(code: HostErrorCode, message: string, details?: unknown) {
    super(message)
    this.name = 'HostError'
    this.code = code
    this.details = details
  }

  get status(): number {
    return HOST_ERROR_STATUS[this.code]
  }

  toJSON(): { error: { code: string; message: string; details?: unknown } } {
    return { error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) } }
  }
}

export function errorResponse(error: HostError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  })
}
