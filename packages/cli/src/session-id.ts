import { randomInt } from 'node:crypto'
import { assertSessionId } from '@bosun/core'

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'

/**
 * A short, readable, sortable session id: local date and time, then four random characters,
 * e.g. `20260312-142205-k3f9`. Ids sort in creation order and pass `assertSessionId`.
 */
export function newSessionId(now: Date = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0')
  const date = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`
  let random = ''
  for (let i = 0; i < 4; i++) random += ALPHABET[randomInt(ALPHABET.length)]
  const id = `${date}-${time}-${random}`
  assertSessionId(id)
  return id
}

/** Checks a session id given on the command line (`INVALID_SESSION_ID` explains the rules). */
export function checkSessionId(id: string): string {
  assertSessionId(id)
  return id
}
