import { ScaffoldError, ScaffoldErrorCodes } from './errors.js'

/** The names one plugin goes by. */
export interface PluginNames {
  /** The short name: `definePlugin({ name })`, the tap name and the namespace of its events (`my-guard/hit`). */
  name: string
  /** The npm scope (`@acme`), if any. */
  scope: string | undefined
  /** The npm package: `bosun-plugin-<name>`, `@scope/bosun-plugin-<name>` (or `@bosun/plugin-<name>` for first-party plugins). */
  packageName: string
  /** How a config file names it: `<name>` or `@scope/<name>`. */
  configName: string
  /** The folder name a scaffold uses when none is given: the package name without its scope. */
  folder: string
}

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
const SCOPE = /^@[a-z0-9][a-z0-9-._~]*$/
const PREFIX = 'bosun-plugin-'
/** npm's limit on the length of a package name. */
const MAX_PACKAGE_NAME = 214

/**
 * The valid name closest to what was typed — `My_Guard`, `piiGuard`, `my guard`, `my--guard` →
 * `my-guard`, `Ünïcode` → `unicode` — so that the refusal can say which name to give; undefined when nothing is left.
 */
function nameLike(typed: string): string | undefined {
  // Accents first come off their letters (`Ünïcode` → `Unicode`): a letter is not an "other character" to cut at.
  const like = typed.normalize('NFKD').replace(/\p{M}/gu, '').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
  return NAME.test(like) ? like : undefined
}

/**
 * Derives every name of a plugin from what the user typed: `my-guard`, `bosun-plugin-my-guard`,
 * `@acme/my-guard` or `@acme/bosun-plugin-my-guard`, with an optional `scope` (`acme` or `@acme`).
 * The short name is restricted to lower-case letters, digits and single hyphens, because it is
 * also the plugin's event namespace; the package name follows the names a config resolves
 * (`'x'` → `@bosun/plugin-x` then `bosun-plugin-x`; `'@acme/x'` → `@acme/bosun-plugin-x`).
 *
 * @example
 * pluginNames('my-guard', '@acme')
 * // { name: 'my-guard', scope: '@acme', packageName: '@acme/bosun-plugin-my-guard', configName: '@acme/my-guard', folder: 'bosun-plugin-my-guard' }
 */
export function pluginNames(input: string, scope?: string): PluginNames {
  let name = input.trim()
  let nameScope: string | undefined
  if (name.startsWith('@')) {
    const slash = name.indexOf('/')
    if (slash < 0) {
      throw new ScaffoldError(ScaffoldErrorCodes.INVALID_PLUGIN_NAME, `"${input}" has a scope but no name: write "@scope/name", e.g. "@acme/my-guard".`, { name: input })
    }
    nameScope = checkScope(name.slice(0, slash))
    name = name.slice(slash + 1)
  }
  const optionScope = scope === undefined ? undefined : checkScope(scope.startsWith('@') ? scope : `@${scope}`)
  if (nameScope !== undefined && optionScope !== undefined && nameScope !== optionScope) {
    throw new ScaffoldError(
      ScaffoldErrorCodes.INVALID_SCOPE,
      `The name says scope ${nameScope} but --scope says ${optionScope}: give the scope once.`,
      { name: input, scope },
    )
  }
  const finalScope = nameScope ?? optionScope
  if (name.startsWith(PREFIX)) name = name.slice(PREFIX.length)
  if (!NAME.test(name)) {
    const like = nameLike(name)
    const example = like === undefined ? ', e.g. "my-guard"' : `: "${nameScope === undefined ? '' : `${nameScope}/`}${like}" would do`
    throw new ScaffoldError(
      ScaffoldErrorCodes.INVALID_PLUGIN_NAME,
      `"${input}" is not a valid plugin name: use lower-case letters, digits and single hyphens${example}. ` +
        `It becomes the package name (${PREFIX}<name>) and the namespace of the plugin's events.`,
      { name: input },
    )
  }
  const packageName =
    finalScope === undefined ? `${PREFIX}${name}` : finalScope === '@bosun' ? `@bosun/plugin-${name}` : `${finalScope}/${PREFIX}${name}`
  if (packageName.length > MAX_PACKAGE_NAME) {
    throw new ScaffoldError(
      ScaffoldErrorCodes.INVALID_PLUGIN_NAME,
      `The package name ${packageName} is ${packageName.length} characters long; npm allows ${MAX_PACKAGE_NAME}. Choose a shorter name.`,
      { name: input },
    )
  }
  return {
    name,
    scope: finalScope,
    packageName,
    configName: finalScope === undefined || finalScope === '@bosun' ? name : `${finalScope}/${name}`,
    folder: packageName.slice(packageName.indexOf('/') + 1),
  }
}

function checkScope(scope: string): string {
  if (SCOPE.test(scope)) return scope
  throw new ScaffoldError(
    ScaffoldErrorCodes.INVALID_SCOPE,
    `"${scope}" is not a valid npm scope: use "@" and lower-case letters, digits, "-", "." or "_", e.g. "@acme".`,
    { scope },
  )
}
