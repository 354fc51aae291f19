import type { SessionEvent, SessionHeader } from '@bosun/core'

/** Session files are `<dir>/<id>.jsonl`. */
export const FILE_SUFFIX = '.jsonl'

/** The marker field that makes a header line recognisable: `{"bosun":"session", ...header}`. */
export const HEADER_MARKER = 'session'

/** The first line of a session file, newline included. */
export function headerLine(header: SessionHeader): string {
  return JSON.stringify({ bosun: HEADER_MARKER, ...header }) + '\n'
}

/**
 * One event as a line, newline included, keys in the order `seq, time, type, data` (then
 * `ignorable` when set). Equal to `JSON.stringify(event) + '\n'` for every event a `Session`
 * builds, but independent of the event object's own key order. Numbers go through `String`,
 * which is exactly how `JSON.stringify` prints a finite number.
 */
export function eventLine(event: SessionEvent): string {
  const line = `{"seq":${event.seq},"time":${event.time},"type":${JSON.stringify(event.type)},"data":${JSON.stringify(event.data)}`
  return 'ignorable' in event && event.ignorable === true ? `${line},"ignorable":true}\n` : `${line}}\n`
}
