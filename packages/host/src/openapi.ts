import { HOST_ERROR_STATUS } from './errors.js'
import { schemas, type SchemaName } from './schemas.js'

interface RouteSpec {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete'
  /** OpenAPI form: `/v1/sessions/{id}`. */
  path: string
  summary: string
  body?: SchemaName
  query?: readonly QueryName[]
  headers?: readonly HeaderName[]
  status: number
  /** A second success: the AI SDK resume route's 204 when no turn is open. */
  empty?: { status: number; description: string }
  sse?: boolean
}

/**
 * The query parameters, with the values the host accepts (request.ts refuses any other with
 * `400 invalid-request` at `?<name>`): a client generated from the document sends only those.
 */
const QUERY = {
  after: { description: 'The seq to read after; -1 (the default) reads from seq 0.', schema: { type: 'integer', minimum: -1 } },
  limit: { description: 'At most this many events (the default and the most: limits.pageSize, 1000).', schema: { type: 'integer', minimum: 1 } },
  from: { description: '"tail": live events only (Last-Event-ID wins over it).', schema: { type: 'string', enum: ['tail'] } },
  chunks: { description: '"false" leaves out the assistant/chunk events of finished steps.', schema: { type: 'string', enum: ['true', 'false'] } },
  wait: { description: '"durable": answer once the message is flushed (durable: true).', schema: { type: 'string', enum: ['durable'] } },
  ticket: { description: 'A single-use ticket from POST /v1/tickets for this path, for an EventSource (which cannot send Authorization).', schema: { type: 'string' } },
} as const
type QueryName = keyof typeof QUERY

const HEADERS = {
  'Last-Event-ID': { description: 'The last seq the client has: the stream resumes after it (wins over ?after and ?from). EventSource sends it when it reconnects.', schema: { type: 'integer', minimum: -1 } },
  'If-Match': { description: 'The inbox version ("41", the ETag of GET /v1/sessions/{id}) the change is for: 412 version-mismatch if the queue changed since.', schema: { type: 'string' } },
} as const
type HeaderName = keyof typeof HEADERS

/** What a queue operation may send: the inbox version it was made against. */
const QUEUE_OP = { headers: ['If-Match'] } as const

/** Every route the host serves; the OpenAPI document is generated from it and a test checks it against the app. */
export const ROUTES: readonly RouteSpec[] = [
  { method: 'get', path: '/v1/host', summary: 'Protocol, version and capabilities', status: 200 },
  { method: 'get', path: '/v1/openapi.json', summary: 'This document', status: 200 },
  { method: 'post', path: '/v1/login', summary: 'Browsers: exchange the token for an HttpOnly cookie', body: 'login', status: 200 },
  { method: 'post', path: '/v1/logout', summary: 'End the cookie login', body: 'empty', status: 200 },
  { method: 'post', path: '/v1/tickets', summary: 'A single-use ?ticket= for one EventSource stream path, valid 60 s', body: 'ticket', status: 200 },
  { method: 'get', path: '/v1/sessions', summary: 'Every stored session with status, queue counts, last activity (lastEventAt) and first prompt (firstPrompt), without resuming any', status: 200 },
  { method: 'get', path: '/v1/stream', summary: 'SSE: sessions added, their status, queue counts and last activity', query: ['ticket'], status: 200, sse: true },
  { method: 'post', path: '/v1/sessions', summary: 'Create a session (optional client-chosen id)', body: 'createSession', status: 201 },
  { method: 'get', path: '/v1/sessions/{id}', summary: 'Snapshot: status, lastSeq, inbox', status: 200 },
  { method: 'delete', path: '/v1/sessions/{id}', summary: 'Remove the session with its subagent children (stopped first): { removed: [ids] }, the session first', status: 200 },
  { method: 'get', path: '/v1/sessions/{id}/children', summary: "A subagent parent's child sessions with their status, without resuming any", status: 200 },
  { method: 'get', path: '/v1/sessions/{id}/events', summary: 'A page of the log (never resumes)', query: ['after', 'limit'], status: 200 },
  { method: 'get', path: '/v1/sessions/{id}/stream', summary: 'SSE: hello, replay after the cursor, then live', query: ['after', 'from', 'chunks', 'ticket'], headers: ['Last-Event-ID'], status: 200, sse: true },
  { method: 'post', path: '/v1/sessions/{id}/messages', summary: 'Admit a message: an admission receipt, idempotent by clientMessageId', body: 'postMessage', query: ['wait'], status: 202 },
  { method: 'get', path: '/v1/sessions/{id}/messages/{messageId}', summary: 'Where a message went, from the log', status: 200 },
  { method: 'patch', path: '/v1/sessions/{id}/inbox/{messageId}', summary: 'Edit a queued message (keeps its id)', body: 'editMessage', ...QUEUE_OP, status: 200 },
  { method: 'delete', path: '/v1/sessions/{id}/inbox/{messageId}', summary: 'Remove a queued message', ...QUEUE_OP, status: 200 },
  { method: 'post', path: '/v1/sessions/{id}/inbox/{messageId}/promote', summary: 'Promote a queued follow-up to steering the running turn', body: 'empty', ...QUEUE_OP, status: 200 },
  { method: 'put', path: '/v1/sessions/{id}/inbox/order', summary: 'Reorder the queued follow-ups', body: 'order', ...QUEUE_OP, status: 200 },
  { method: 'post', path: '/v1/sessions/{id}/fork', summary: 'Fork the session after a turn', body: 'fork', status: 201 },
  { method: 'post', path: '/v1/ai-sdk/chat', summary: 'AI SDK useChat: admit the last user message, stream its turn (UI message stream v1)', body: 'aiSdkChat', status: 200, sse: true },
  { method: 'get', path: '/v1/ai-sdk/chat/{id}/stream', summary: 'AI SDK resume: the open turn as a UI message stream, or 204', query: ['ticket'], status: 200, empty: { status: 204, description: 'No turn is open (or no such session yet): nothing to resume' }, sse: true },
  { method: 'get', path: '/v1/ai-sdk/chat/{id}/messages', summary: 'AI SDK reload: the chat as UIMessage[] (ended turns; the same parts the stream sent)', status: 200 },
  { method: 'post', path: '/v1/sessions/{id}/cancel', summary: 'Abort the running turn; clear the queues unless keepInbox', body: 'cancel', status: 200 },
  { method: 'post', path: '/v1/sessions/{id}/wake', summary: 'Run parked input', body: 'empty', status: 200 },
]

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { enum: Object.keys(HOST_ERROR_STATUS) }, message: { type: 'string' }, details: {} },
    },
  },
}

/** OpenAPI 3.1 for the host, generated from {@link ROUTES} and the request body schemas. */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of ROUTES) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }))
    const query = (route.query ?? []).map((name) => ({ name, in: 'query', required: false, ...QUERY[name] }))
    const headers = (route.headers ?? []).map((name) => ({ name, in: 'header', required: false, ...HEADERS[name] }))
    const parameters = [...params, ...query, ...headers]
    paths[route.path] ??= {}
    paths[route.path]![route.method] = {
      summary: route.summary,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.body}` } } } } } : {}),
      responses: {
        [String(route.status)]: { description: 'OK', content: { [route.sse ? 'text/event-stream' : 'application/json']: {} } },
        ...(route.empty ? { [String(route.empty.status)]: { description: route.empty.description } } : {}),
        // Any route: its store failed (store-unavailable), or a limit or an open timed out; retried after retry-after.
        '503': { description: 'Unavailable for now (store-unavailable, session-unavailable, too-many-streams): retry after retry-after', headers: { 'retry-after': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/error' } } } },
        default: { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/error' } } } },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Bosun host', version, description: 'bosun-host/1: drive Bosun sessions over HTTP (docs/host.md).' },
    components: {
      schemas: { ...schemas, error: errorSchema },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    paths,
  }
}
