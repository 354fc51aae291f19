import { stripVTControlCharacters } from 'node:util'
import type { Io, OutputStream } from './io.js'
import { safeStyled } from './terminal-safe.js'

/** ANSI styles, or identity functions when colour is off. */
export interface Style {
  readonly enabled: boolean
  bold(text: string): string
  dim(text: string): string
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  blue(text: string): string
  cyan(text: string): string
  magenta(text: string): string
  italic(text: string): string
}

/** A stream with its style: where a command prints. */
export interface Printer {
  readonly stream: OutputStream
  readonly style: Style
  readonly isTTY: boolean
  /** Terminal width, or `undefined` when not a terminal. */
  readonly columns: number | undefined
  /** Writes `text`; on a terminal, control characters other than the CLI's colours are shown, not sent (see terminal-safe.ts). */
  write(text: string): void
  line(text?: string): void
}

/**
 * Colour is on only for a terminal: never when the stream is not a TTY, when `NO_COLOR` is set
 * to anything non-empty (no-color.org), when `TERM=dumb` or with `--no-color`. `FORCE_COLOR`
 * (non-empty, not `0`) turns it on regardless, for tools that render ANSI from a pipe.
 */
export function colorEnabled(stream: OutputStream, env: Io['env'], flag = true): boolean {
  if (!flag) return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true
  return stream.isTTY === true && env.TERM !== 'dumb'
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`
const plain = (text: string) => text

export function createStyle(enabled: boolean): Style {
  const pick = (open: number, close: number) => (enabled ? sgr(open, close) : plain)
  return {
    enabled,
    bold: pick(1, 22),
    dim: pick(2, 22),
    red: pick(31, 39),
    green: pick(32, 39),
    yellow: pick(33, 39),
    blue: pick(34, 39),
    cyan: pick(36, 39),
    magenta: pick(35, 39),
    italic: pick(3, 23),
  }
}

/** The width of the terminal `stream` is (read each time: a window can be resized), or `undefined` off a terminal. */
export function terminalColumns(stream: OutputStream): number | undefined {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined
}

export function createPrinter(stream: OutputStream, env: Io['env'], colorFlag = true): Printer {
  const isTTY = stream.isTTY === true
  // The last line of defence on a terminal; off one, output is written as given (a pipe gets
  // `bosun run`'s exact answer), and readable views escape session text where they format it.
  const shown = isTTY ? safeStyled : (text: string) => text
  return {
    stream,
    style: createStyle(colorEnabled(stream, env, colorFlag)),
    isTTY,
    get columns() {
      return terminalColumns(stream)
    },
    write: (text) => void stream.write(shown(text)),
    line: (text = '') => void stream.write(`${shown(text)}\n`),
  }
}

/**
 * Columns a string takes in a terminal: ANSI sequences take none, East Asian wide characters and
 * most emoji take two, combining marks none. Close enough for layout; never used for data.
 */
export function displayWidth(text: string): number {
  let width = 0
  for (const char of stripVTControlCharacters(text)) {
    const code = char.codePointAt(0)!
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue
    if (/\p{Mn}|\p{Me}|\u200b|\u200d|\ufe0f/u.test(char)) continue
    width += isWide(code) ? 2 : 1
  }
  return width
}

/** Cuts `text` to at most `width` columns, ending in `…` when cut. Strips ANSI when it has to cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  let out = ''
  let used = 0
  for (const char of stripVTControlCharacters(text)) {
    const w = displayWidth(char)
    if (used + w > width - 1) break
    out += char
    used += w
  }
  return `${out}…`
}

/**
 * How much of a turn's error message the chat's and `bosun log`'s line shows: the whole of what
 * Bosun's errors say (a provider's message is at most 1,000 characters, then what to do about it),
 * cut only where a plugin's or tool's error runs on. A message ends with what to do — the key's
 * variable, the baseURL to check — so the 200 characters shown before cut exactly that off.
 */
export const ERROR_MESSAGE_MAX = 2_000

/** One line for display: newlines shown as `⏎`, cut to `max` columns. */
export function oneLine(text: string, max: number): string {
  return truncate(text.replace(/\s*\r?\n\s*/g, ' ⏎ ').trim(), max)
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
}
