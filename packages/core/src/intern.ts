/**
 * One shared copy of each short string a store decodes, so that a log read back from disk holds
 * one `"assistant/chunk"` rather than one per event.
 *
 * Why: `JSON.parse` (and a database driver) makes a new string for every string value it reads;
 * V8 shares only values of up to 10 characters. An idle session loaded from a store therefore kept
 * a copy of its events' `type` per event (`assistant/chunk` 140 times in figure 6's session), of
 * chunk kinds, roles, stop reasons and tool names: 331 strings and 12.2 KB per session
 * (docs/benchmarks.md, section 6, "Goal 2 — heap per idle session"). Events appended by a running
 * agent share the code's literals already; this gives a reopened log the same.
 *
 * Bounded, so that it never holds a user's text: `freezeParsedJson` shares only the values of
 * name-like keys ({@link isNameKey}: types, kinds, roles, reasons, tool names), and only strings
 * of at most {@link INTERN_MAX_LENGTH} characters are kept; the table starts over when it holds
 * {@link INTERN_CAPACITY} of them (distinct names churn it but cannot grow it; the next lookups
 * refill it with what recurs).
 */

/** Longest string shared: the longest core event type is 19 characters, a plugin's a few more. */
export const INTERN_MAX_LENGTH = 32
/**
 * `JSON.parse` itself shares string values of up to this many characters (V8 internalizes them:
 * `kMaxInternalizedStringValueLength`), so a parsed value that short is not looked up again —
 * most of a log's strings are (`"text"`, `"user"`, short ids), and a lookup costs a hash of the
 * string. Another engine or version only makes the cut less exact: equal strings come out either way.
 */
export const PARSED_SHARED_MAX_LENGTH = 10
/** Entries before the table is dropped and started over (~250 KB at most, strings included). */
export const INTERN_CAPACITY = 4096

let table = new Map<string, string>()

/**
 * The shared copy of `value` when it is short enough to share (the first such string seen becomes
 * the shared copy), otherwise `value` itself. Equal strings in, an equal string out: only which
 * copy of it is kept changes. For stores decoding a log (`freezeParsedJson` calls it on every
 * string it freezes); not for text that is kept for a moment only.
 */
export function internString(value: string): string {
  if (value.length > INTERN_MAX_LENGTH) return value
  const shared = table.get(value)
  if (shared !== undefined) return shared
  if (table.size >= INTERN_CAPACITY) table = new Map()
  table.set(value, value)
  return value
}

/**
 * Keys whose string values are names from a small vocabulary rather than text: event and block
 * types, chunk kinds, roles, reasons, tool and adapter names, error codes. `freezeParsedJson`
 * shares only these (and array items under them, such as `tools`): looking up a message's text
 * or an id would cost a hash per string, fill the table with values that never recur, and save
 * nothing.
 */
export function isNameKey(key: string): boolean {
  switch (key) {
    case 'type':
    case 'kind':
    case 'reason':
    case 'finish':
    case 'name':
    case 'role':
    case 'target':
    case 'outcome':
    case 'adapter':
    case 'mode':
    case 'by':
    case 'delivery':
    case 'code':
    case 'tools':
      return true
    default:
      return false
  }
}
