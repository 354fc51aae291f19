import type { Store } from '@bosun/core'
import type { Context, Hono } from 'hono'
import type { HostFeed } from './feed.js'
import type { SchemaName } from './schemas.js'
import type { LiveSession, SessionManager } from './sessions.js'

/** What every route group needs from the host it registers on. */
export interface HostContext {
  app: Hono
  store: Store
  sessions: SessionManager
  feed: HostFeed
  version: string
  keepAliveMs: number
  streamBatch: number
  pageSize: number
  /** Reads and validates a JSON body against one of the host's schemas. */
  body<T>(c: Context, schema: SchemaName): Promise<T>
  /** Runs `fn` with the session live and held (not retired meanwhile). */
  withSession<T>(id: string, fn: (live: LiveSession) => Promise<T> | T): Promise<T>
  listSessions(): Promise<Array<{ id: string }>>
  /**
   * Rows of sessions this host has not loaded, with the live status of those another host of a
   * cluster runs (`running` mid-turn); as they are without a cluster.
   */
  liveStatus<T extends { id: string; loaded: boolean; status: string }>(rows: T[]): Promise<T[]>
  /** The bearer token, when the host requires one. */
  token: string | undefined
}
