/** The codes of every error the scaffold reports; stable across versions. */
export const ScaffoldErrorCodes = {
  /** The command line cannot be understood (an unknown option, a missing name, an option without its value). */
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  /** The plugin name cannot become a package name and an event namespace. */
  INVALID_PLUGIN_NAME: 'INVALID_PLUGIN_NAME',
  /** The npm scope is not a valid scope (`@acme`). */
  INVALID_SCOPE: 'INVALID_SCOPE',
  /** The target folder exists and is not empty (or is a file): nothing is overwritten. */
  TARGET_NOT_EMPTY: 'TARGET_NOT_EMPTY',
  /** A template names a placeholder the scaffold does not fill: a bug in create-bosun-plugin. */
  TEMPLATE_PLACEHOLDER: 'TEMPLATE_PLACEHOLDER',
} as const

/** One of {@link ScaffoldErrorCodes}. */
export type ScaffoldErrorCode = (typeof ScaffoldErrorCodes)[keyof typeof ScaffoldErrorCodes]

/** An error of the scaffold: a stable `code`, a message that says what to do, and structured `details`. */
export class ScaffoldError extends Error {
  readonly code: ScaffoldErrorCode
  readonly details: Record<string, unknown>

  constructor(code: ScaffoldErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message)
    this.name = 'ScaffoldError'
    this.code = code
    this.details = details
  }
}
