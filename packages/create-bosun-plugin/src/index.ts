/**
 * create-bosun-plugin — scaffolds a Bosun plugin package (`pnpm create bosun-plugin <name>`).
 * The command is `bin/create-bosun-plugin.mjs`; this entry exposes the same steps to code.
 */
export { main, USAGE } from './cli.js'
export type { CliIo } from './cli.js'
export { ScaffoldError, ScaffoldErrorCodes } from './errors.js'
export type { ScaffoldErrorCode } from './errors.js'
export { pluginNames } from './names.js'
export type { PluginNames } from './names.js'
export { outputPath, render } from './render.js'
export { scaffold } from './scaffold.js'
export type { ScaffoldOptions, ScaffoldResult } from './scaffold.js'
export { dependencyRanges } from './versions.js'
