import type { Agent, UserMessage } from '@bosun/core'
import type { Context } from 'hono'
import { HostError } from './errors.js'
import { checkSessionId } from './sessions.js'

/** Reads a JSON body, refusing more than `limit` bytes (by content-length and while streaming). */
export async function readBody(c: Context, limit: number): Promise<unknown> {
  const length = c.req.header('content-length')
  if (length !== undefined && Number(length) > limit) {
    throw new HostError('payload-too-large', `The request body is larger than ${limit} bytes: send less.`, { limit })
  }
  const body = c.req.raw.body
  if (!body) return {}
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw new HostError('payload-too-large', `The request body is larger than ${limit} bytes: send less.`, { limit })
    }
    chunks.push(value)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch {
    throw new HostError('invalid-request', 'The request body is not valid JSON.', { path: '/' })
  }
}

export function intQuery(c: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = c.req.query(name)
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new HostError('invalid-request', `Query parameter "${name}" must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}.`, { path: `?${name}` })
  }
  return value
}

/** The `:id` route parameter, validated as a session id. */
export function sessionIdParam(c: Context): string {
  const id = c.req.param('id')!
  checkSessionId(id)
  return id
}

export function inboxOf(agent: Agent): { 'next-turn': readonly UserMessage[]; 'next-step': readonly UserMessage[] } {
  return { 'next-turn': [...agent.inbox.nextTurn], 'next-step': [...agent.inbox.nextStep] }
}
