import type { SessionEvent } from '@bosun/core'

export declare function bigSessionEvents(turns: number, startTime?: number): SessionEvent[]
