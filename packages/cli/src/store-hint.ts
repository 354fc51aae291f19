import { BosunError, ErrorCodes } from '@bosun/core'
import { storeKind, type CliConfig } from './agent.js'

/**
 * What to do about a store error the file system caused, by Node's error code. The store's own
 * message says which file failed and why (`EACCES: permission denied, open '…/a1.jsonl.lock'`);
 * only the CLI knows where that folder came from — the config's store entry, or its default —
 * so only the CLI can say what to change.
 */
const FIXES: Record<string, string> = {
  EACCES: 'bosun may not write there (permission denied): let the user running bosun create and write files in that folder, or',
  EPERM: 'bosun may not write there (permission denied): let the user running bosun create and write files in that folder, or',
  EROFS: 'that file system is read-only:',
  ENOTDIR: 'a part of that path is a file, not a folder: move the file away, or',
  EEXIST: 'a part of that path is a file, not a folder: move the file away, or',
  ENOSPC: 'the disk is full: free space on it, or',
  EDQUOT: 'your disk quota is used up: free space in it, or',
}

/**
 * `error` with one more sentence when it is a store error the file system caused (a folder bosun
 * may not write, a path through a file, a full disk): where the sessions go, which setting says so,
 * and what to change. Any other error is returned as it is.
 */
export function withStoreHint(error: unknown, cfg: CliConfig): unknown {
  if (!BosunError.is(error, ErrorCodes.STORE)) return error
  const code = errnoOf(error)
  // A session file this user may not read (`bosun log` of a file another user wrote): the store says
  // what to do about reading it; advice on where bosun may write would mislead. (A path through a
  // file, a full disk… keep the hint: where the folder came from is the CLI's to say.)
  const reading = (error.details as { operation?: unknown } | undefined)?.operation === 'read'
  if (reading && (code === 'EACCES' || code === 'EPERM')) return error
  const fix = code === undefined ? undefined : FIXES[code]
  if (fix === undefined) return error
  const hint = `${whereSessionsGo(cfg)} ${fix} ${whatToChange(cfg)}`
  const message = `${error.message.replace(/\.?$/, '.')} ${hint}`
  return new BosunError(error.code, message, { cause: error, details: error.details })
}

/** The Node.js error code (`EACCES`…) of the error or of one of its causes. */
function errnoOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && FIXES[code] !== undefined) return code
    const errno = (current as { details?: { errno?: unknown } }).details?.errno
    if (typeof errno === 'string' && FIXES[errno] !== undefined) return errno
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

function whereSessionsGo(cfg: CliConfig): string {
  const kind = storeKind(cfg)
  if (kind.kind !== 'jsonl') return `The store is the one ${cfg.file ?? 'the config'} names ("store");`
  if (cfg.defaultStoreDir === undefined) return `Sessions go to ${kind.dir} (the store's "dir" in ${cfg.file});`
  const why = cfg.file === undefined ? 'no config was found' : `${cfg.file} names no store`
  return `Sessions go to ${kind.dir} (the default folder: ${why});`
}

function whatToChange(cfg: CliConfig): string {
  const kind = storeKind(cfg)
  if (kind.kind !== 'jsonl') return 'give the store a place bosun can write in its options.'
  if (cfg.defaultStoreDir === undefined) return 'set "dir" to a folder bosun can write (relative to the config file\'s folder).'
  const where = cfg.file === undefined ? 'in a config (bosun init writes one)' : `in ${cfg.file}`
  return `name a folder bosun can write ${where}: "store": ["store-jsonl", { "dir": "…" }].`
}
