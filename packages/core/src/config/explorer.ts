import { createRequire } from 'node:module'
import type { Loader, PublicExplorer } from 'cosmiconfig'

/** What {@link configExplorer} searches: the places, in each folder, and a loader per extension. */
export interface ExplorerSettings {
  searchPlaces: readonly string[]
  loaders: Record<string, Loader>
}

/** The options cosmiconfig 9.0.2's `Explorer` takes: what `cosmiconfig()` would have built from ours. */
interface InternalOptions extends ExplorerSettings {
  moduleName: string
  searchPlaces: string[]
  ignoreEmptySearchPlaces: boolean
  cache: boolean
  transform: (result: unknown) => unknown
  metaConfigFilePath: null
  mergeImportArrays: boolean
  mergeSearchPlaces: boolean
  searchStrategy: 'project'
}

const require = createRequire(import.meta.url)

/**
 * cosmiconfig's explorer for `bosun`, built without `cosmiconfig()`'s first step: before it
 * builds one, `cosmiconfig()` searches the **process's working directory** for its own "meta
 * config" — `package.json`, `package.yaml`, `.config/config.{json,yaml,yml,js,ts,cjs,mjs}` — which
 * runs the code of a `.config/config.js` (or compiles a `.config/config.ts`) that is not Bosun's and
 * that nobody named, on every command, even with `--config` pointing elsewhere; and a `cosmiconfig`
 * key found there adds search places ahead of Bosun's documented ones. Bosun's search is exactly
 * {@link ExplorerSettings.searchPlaces}, from the folder it is given.
 *
 * `Explorer` is not part of cosmiconfig's documented API; core pins cosmiconfig to 9.0.2, whose
 * `dist/Explorer.js` it is (the config tests load through it, so a change there fails them).
 */
export function configExplorer(settings: ExplorerSettings): PublicExplorer {
  const { Explorer } = require('cosmiconfig/dist/Explorer.js') as { Explorer: new (options: InternalOptions) => PublicExplorer }
  return new Explorer({
    moduleName: 'bosun',
    searchPlaces: [...settings.searchPlaces],
    loaders: settings.loaders,
    // `project`: from the start folder up to the first folder with a package.json.
    searchStrategy: 'project',
    // An empty file is found and reported, not skipped in favour of a config further up.
    ignoreEmptySearchPlaces: false,
    cache: false,
    transform: (result) => result,
    metaConfigFilePath: null,
    mergeImportArrays: true,
    mergeSearchPlaces: true,
  })
}
