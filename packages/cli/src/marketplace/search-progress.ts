import type { Printer } from '../output.js'
import type { SearchProgress } from './search.js'

/** A progress line that overwrites itself on a terminal while `bosun plugins search` works. */
export interface ProgressLine {
  update(progress: SearchProgress): void
  /** Erases the line, so that what follows starts on a clean one. */
  clear(): void
}

/**
 * A counter on `err` (stderr), rewritten in place with a carriage return: a search near the cap
 * asks dozens of pages and reads dozens of documents, minutes on a slow registry, and showed
 * nothing meanwhile. Only on a terminal: a pipe or a log file gets no control characters and no
 * counter lines (`undefined` then, as with --json, whose stderr a script may read).
 */
export function progressLine(err: Printer): ProgressLine | undefined {
  if (!err.isTTY) return undefined
  let shown = false
  // Written to the stream itself: the printer shows a carriage return as a visible character.
  const put = (text: string) => void err.stream.write(`\r\u001b[K${text}`)
  return {
    update(progress) {
      shown = true
      put(
        err.style.dim(
          progress.stage === 'searching'
            ? `Searching… ${progress.matches.toLocaleString('en-US')} matches read`
            : `Reading hooks… ${progress.done.toLocaleString('en-US')} of ${progress.of.toLocaleString('en-US')} packages`,
        ),
      )
    },
    clear() {
      if (shown) put('')
      shown = false
    },
  }
}
