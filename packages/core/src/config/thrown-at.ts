import { isAbsolute, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Where in the user's own files a module threw while it ran — a config file whose code names
 * something never imported (`plugins: [retry]`), or a local plugin file that does: the first
 * stack frame in a file under `folder` (the loaded file's own folder) outside node_modules, as
 * `file:line` or `file:line:column`; undefined when no frame is there (the error came from
 * loading, not running, or from an installed package's code only).
 *
 * The column only where the frame is a `file://` URL: Node ran that file as it is. A plain path
 * is a file jiti ran: transpiled with Babel's `retainLines`, so its line is the source's but its
 * column counts the transpiled text (types removed, spaces collapsed) — not given rather than
 * given wrong. (Node's own CommonJS frames are plain paths too and lose a column they had right.)
 */
export function thrownAt(error: unknown, folder: string): string | undefined {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : ''
  // Frames only: a message of several lines could hold a line that looks like one.
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line))
  for (const frame of frames) {
    const found = /((?:file:\/\/)?(?:[A-Za-z]:)?[\\/][^()]*?):(\d+):(\d+)\)?\s*$/.exec(frame)
    if (found === null) continue
    const [, location, line, column] = found
    // A config loaded fresh carries `?bosun-load=<n>` (importModule), in a URL or (under Vitest) a path.
    const bare = location!.replace(/\?bosun-load=\d+$/, '')
    const url = bare.startsWith('file://')
    const file = url ? fileURLToPath(bare) : bare
    const inside = relative(folder, file)
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || /(^|[\\/])node_modules[\\/]/.test(inside)) continue
    return url ? `${file}:${line}:${column}` : `${file}:${line}`
  }
  return undefined
}
