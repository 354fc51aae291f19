/**
 * `@bosun/web`: the web UI's static files, built at publish time (Vite) into `dist/app`. This
 * entry is a plain Node module (no React): it only says where those files are, so a host can serve
 * them.
 *
 * @example
 * import { webRoot } from '@bosun/web'
 * const host = createHost({ store, agentFactory, webRoot })
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * Absolute path of the built UI (the folder holding `index.html`). The same from the sources
 * (`src/`) and the build (`dist/`): both sit one level under the package root.
 */
export const webRoot: string = fileURLToPath(new URL('../dist/app/', import.meta.url))

/** Whether the UI has been built (`pnpm --filter @bosun/web build`); a published package always has it. */
export function isWebBuilt(): boolean {
  return existsSync(`${webRoot}index.html`)
}
