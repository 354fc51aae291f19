import { BosunError } from '@bosun/core'

/** Codes of the errors `bosun plugins search|info|add|remove` raise (docs/marketplace.md lists them). */
export const MarketplaceErrorCodes = {
  /** The registry could not be reached (refused, DNS, TLS, timeout). */
  REGISTRY_UNREACHABLE: 'REGISTRY_UNREACHABLE',
  /** The registry answered 401/403: it needs a token the npm configuration does not give (or gives a wrong one). */
  REGISTRY_AUTH_REQUIRED: 'REGISTRY_AUTH_REQUIRED',
  /** The registry answered something else than a package document or search result. */
  REGISTRY_ERROR: 'REGISTRY_ERROR',
  /** No package of that name (or version) on the registry. */
  PACKAGE_NOT_FOUND: 'PACKAGE_NOT_FOUND',
  /** A short name of a plugin the CLI bundles, not on the registry: nothing to install, the config names it as it is. */
  BUNDLED_WITH_CLI: 'BUNDLED_WITH_CLI',
  /** The package exists but carries none of the keywords `bosun-plugin`, `bosun-adapter`, `bosun-store`. */
  NOT_A_BOSUN_PACKAGE: 'NOT_A_BOSUN_PACKAGE',
  /** A `--option key=value` does not fit the plugin's options schema. */
  OPTION_INVALID: 'OPTION_INVALID',
  /** The package manager's install or removal failed. */
  INSTALL_FAILED: 'INSTALL_FAILED',
  /** The package supports a `@bosun/core` range the running core is not in. */
  INCOMPATIBLE_CORE: 'INCOMPATIBLE_CORE',
  /** `bosun plugins add` was not confirmed. */
  NOT_CONFIRMED: 'NOT_CONFIRMED',
  /** `bosun plugins remove` named a plugin the config does not list and the project does not depend on. */
  NOT_ADDED: 'NOT_ADDED',
} as const

export type MarketplaceErrorCode = keyof typeof MarketplaceErrorCodes

/** A coded error the user can act on (printed as `error CODE: message`). */
export function marketplaceError(code: MarketplaceErrorCode, message: string, details?: Record<string, unknown>): BosunError {
  return new BosunError(code, message, details ? { details } : {})
}
