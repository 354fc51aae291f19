import { readFileSync } from 'node:fs'

/**
 * This package's own version. Bosun's packages are released together at one version (a fixed
 * group, see docs/releasing.md), so it is also the version of the `@bosun/core` and
 * `@bosun/testkit` published with it.
 */
const ownVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

/**
 * The dependency ranges a generated package starts with. A published plugin needs real semver
 * ranges (never `workspace:*`). Bosun's own follow this release (`^<version>`, so a scaffold
 * always asks for the core it was published with); raise the tool ranges when TypeScript or
 * vitest ship a release the template should build against. `scaffold.test.ts` keeps the tool
 * ranges in step with the workspace's own versions.
 */
export const dependencyRanges = {
  '@bosun/core': `^${ownVersion}`,
  '@bosun/testkit': `^${ownVersion}`,
  '@changesets/cli': '^2.31.1',
  '@types/node': '^20.19.43',
  typescript: '^5.9.3',
  vitest: '^4.1.12',
} as const
