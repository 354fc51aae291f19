/**
 * @bosun/host — drive running Bosun sessions over HTTP: admission receipts, queue operations by
 * id and resumable SSE event streams (SPEC §10).
 */
export { createHost, DEFAULT_BODY_LIMIT, DEFAULT_IDLE_MS, DEFAULT_KEEP_ALIVE_MS, PROTOCOL } from './host.js'
export type { CreateHostOptions, Host, HostAuth, HostLimits } from './host.js'
export type { AdmissionReceipt } from './admission.js'
export { tokenMatches } from './exposure.js'
export { HOST_ERROR_STATUS, HostError } from './errors.js'
export type { HostErrorCode } from './errors.js'
export { StreamStalledError } from './stream-stall.js'
export { SessionManager } from './sessions.js'
export type { AgentFactory, LiveSession } from './sessions.js'
export { messageState, foldInbox } from './log.js'
export type { MessageState, InboxSnapshot } from './log.js'
export { listen, isLoopback } from './listen.js'
export { trustedProxyProblem } from './trusted-proxy.js'
export type { ListenOptions, RunningServer } from './listen.js'
export { openApiDocument, ROUTES } from './openapi.js'
