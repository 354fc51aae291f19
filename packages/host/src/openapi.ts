import { HOST_ERROR_STATUS } from './errors.js'
import { schemas, type SchemaName } from './schemas.js'

interface RouteSpec {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete'
  /** OpenAPI form: `/v1/sessions/{id}`. */
  path: string
  summary: string
  body?: SchemaName
  query?: string[]
  status: number
  sse?: boolean
}

/** Every route the host serves; the OpenAPI document is generated from it and a test checks it against the app. */
export const ROUTES: readonly RouteSpec[] = [
  { method: 'get', path: '/v1/host', summary: 'Protocol, version and capabilities', status: 200 },
  { method: 'get', path: '/v1/openapi.json', summary: 'This document', status: 200 },
  { method: 'post', path: '/v1/login', summary: 'Browsers: exchange the token for an HttpOnly cookie', body: 'login', status: 200 },
  { method: 'post', path: '/v1/logout', summary: 'End the cookie login', body: 'empty', status: 200 },
  { method: 'post', path: '/v1/tickets', summary: 'A single-use ?ticket= for one EventSource stream path, valid 60 s', body: 'ticket', status: 200 },
  { method: 'get', path: '/v1/sessions', summary: 'Every stored session with status, queue counts, last activity (lastEventAt) and first prompt (firstPrompt), without resuming any', status: 200 },
  { method: 'get', path: '/v1/stream', summary: 'SSE: sessions added, their status, queue counts and last activity', status: 200, sse: true },
  { method: 'post', path: '/v1/sessions', summary: 'Create a session (optional client-chosen id)', body: 'createSession', status: 201 },
  { method: 'get', path: '/v1/sessions/{id}', summary: 'Snapshot: status, lastSeq, inbox', status: 200 },
  { method: 'get', path: '/v1/sessions/{id}/children', summary: "A subagent parent's child sessions with their status, without resuming any", status: 200 },
  { method: 'get', path: '/v1/sessions/{id}/events', summary: 'A page of the log (never resumes)', query: ['after', 'limit'], status: 200 },
  { method: 'get', path: '/v1/sessions/{id}/stream', summary: 'SSE: hello, replay after the cursor, then live', query: ['after', 'from', 'chunks'], status: 200, sse: true },
  { method: 'post', path: '/v1/sessions/{id}/messages', summary: 'Admit a message: an admission receipt, idempotent by clientMessageId', body: 'postMessage', query: ['wait'], status: 202 },
  { method: 'get', path: '/v1/sessions/{id}/messages/{messageId}', summary: 'Where a message went, from the log', status: 200 },
  { method: 'patch', path: '/v1/sessions/{id}/inbox/{messageId}', summary: 'Edit a queued message (keeps its id)', body: 'editMessage', status: 200 },
  { method: 'delete', path: '/v1/sessions/{id}/inbox/{messageId}', summary: 'Remove a queued message', status: 200 },
  { method: 'post', path: '/v1/sessions/{id}/inbox/{messageId}/promote', summary: 'Promote a queued follow-up to steering the running turn', body: 'empty', status: 200 },
  { method: 'put', path: '/v1/sessions/{id}/inbox/order', summary: 'Reorder the queued follow-ups', body: 'order', status: 200 },
  { method: 'post', path: '/v1/sessions/{id}/fork', summary: 'Fork the session after a turn', body: 'fork', status: 201 },
  { method: 'post', path: '/v1/ai-sdk/chat', summary: 'AI SDK useChat: admit the last user message, stream its turn (UI message stream v1)', body: 'aiSdkChat', status: 200, sse: true },
  { method: 'get', path: '/v1/ai-sdk/chat/{id}/stream', summary: 'AI SDK resume: the open turn as a UI message stream, or 204', status: 200, sse: true },
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
    const query = (route.query ?? []).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } }))
    paths[route.path] ??= {}
    paths[route.path]![route.method] = {
      summary: route.summary,
      ...(params.length + query.length > 0 ? { parameters: [...params, ...query] } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.body}` } } } } } : {}),
      responses: {
        [String(route.status)]: { description: 'OK', content: { [route.sse ? 'text/event-stream' : 'application/json']: {} } },
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
