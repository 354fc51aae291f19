// The defaults of createHost()'s `limits`, read by the host where it applies them and by the
// options schema (options.ts) that declares them — one number each, which docs/host.md is checked
// against (test/docs-options.test.ts). The stream bounds (stream-limit.ts), the spawn wait
// (child-open.ts) and the cluster's waits (cluster/cluster.ts) keep theirs beside the code that
// uses them; the schema reads those too.

/** `limits.bodyBytes`: the largest request body, 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024
/** `limits.idleMs`: a session unused this long is closed, 5 min. */
export const DEFAULT_IDLE_MS = 5 * 60_000
/** `limits.keepAliveMs`: the keep-alive comment interval on SSE streams, 15 s. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000
/** `limits.streamBatch`: events sent per read from the log on a stream. */
export const DEFAULT_STREAM_BATCH = 256
/** `limits.pageSize`: the largest page of `GET /sessions/:id/events`. */
export const DEFAULT_PAGE_SIZE = 1000
/** `limits.openTimeoutMs`: how long opening a session (its plugins' setups, its store's open) may take, 60 s. */
export const DEFAULT_OPEN_TIMEOUT_MS = 60_000
