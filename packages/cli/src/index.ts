/**
 * @bosun/cli — the `bosun` command (`bin: bosun`). From code: `main(argv)` runs it, and the
 * plugin scanner that `bosun plugins` uses is exported for reuse (also as `@bosun/cli/plugins-scan`).
 */
export { main } from './program.js'
export type { Io } from './io.js'
export { ExitCode } from './exit-codes.js'
export { configName, scanPlugins } from './plugins-scan.js'
export type { InstalledPlugin, ScanPluginsOptions } from './plugins-scan.js'
