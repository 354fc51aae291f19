/**
 * The dependency ranges a generated package starts with. A published plugin needs real semver
 * ranges (never `workspace:*`); raise these when Bosun, TypeScript or vitest ship a release the
 * template should build against. `versions.test.ts` keeps the tool ranges in step with the
 * workspace's own versions.
 */
export const dependencyRanges = {
  '@bosun/core': '^0.1.0',
  '@bosun/testkit': '^0.1.0',
  '@changesets/cli': '^2.31.1',
  '@types/node': '^20.19.43',
  typescript: '^5.9.3',
  vitest: '^4.1.12',
} as const
