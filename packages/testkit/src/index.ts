/**
 * @bosun/testkit — run a plugin inside a real agent on the scripted model and assert on the
 * event log it leaves: "this input is rejected with this metadata", "this input enters rewritten".
 */
export { testPlugin } from './test-plugin.js'
export type { PluginKit, TestPluginOptions } from './test-plugin.js'
export { turnReport } from './turn-report.js'
export type { Rejection, TurnReport } from './turn-report.js'
export { AssertionError, expectEntered, expectRejected } from './expect.js'
export type { ExpectedRejection } from './expect.js'
export { expectManifest } from './manifest.js'
export type { PackageLocation } from './manifest.js'
export { findPostgres, postgresAvailable, startPostgres } from './postgres.js'
export type { PostgresServer, PostgresSource, StartPostgresOptions } from './postgres.js'
