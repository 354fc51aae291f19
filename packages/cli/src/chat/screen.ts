import { clearScreenDown, cursorTo, moveCursor, type Interface } from 'node:readline'
import type { OutputStream } from '../io.js'
import { displayWidth, truncate } from '../output.js'
import { safeStyled } from '../terminal-safe.js'
import { wrapRows } from '../wrap.js'

/** Where the chat prints: a transcript that only grows, and (on a terminal) a live area below it. */
export interface Screen {
  /** Appends streamed assistant text. */
  stream(text: string): void
  /** Ends the streamed paragraph. */
  endStream(): void
  /**
   * Shows `text` as the answer's unfinished line, replacing what was shown there (a rendered view
   * prints a line only once it is finished). Only for text not yet streamed.
   */
  preview(text: string): void
  /**
   * Adds complete lines to the transcript (after any streamed text). Session text in them is
   * escaped by the caller; a control character that slipped through is shown, not sent.
   */
  print(text: string): void
  /** Redraws the live area (queue, status line, prompt) from the current state. */
  refresh(): void
  /** Readline submitted `line`: it moved the cursor below it, out of the live area. */
  submitted(line: string): void
  /** Leaves the terminal clean for the last lines; later output goes straight through. */
  close(): void
}

/**
 * The terminal layout: the transcript scrolls above a live area of [the answer's unfinished
 * line][queued messages][status line][prompt + what the user is typing]. Every change erases the
 * live area (cursor up to its first row, clear down), writes what became final, and redraws it,
 * so typing never mixes with streamed text. The streamed unfinished line is word-wrapped to one
 * row (a Markdown preview, which may be wider, is drawn word-wrapped over the rows it needs), and
 * the prompt row is redrawn exactly as readline would, so readline's own cursor state stays valid.
 */
export class LiveScreen implements Screen {
  readonly #rl: Interface
  readonly #out: OutputStream
  readonly #liveLines: () => string[]
  #partial = ''
  /**
   * Whether `#partial` is a preview: text its caller holds and streams once it is finished (so
   * `close` leaves it to the caller), not streamed text only the screen holds.
   */
  #previewing = false
  /** After `close`: whether the last text written went through without ending its line. */
  #openLine = false
  /** Rows drawn above the prompt (partial + live lines); valid while `#drawn`. */
  #aboveRows = 0
  #drawn = false
  #closed = false

  constructor(rl: Interface, out: OutputStream, liveLines: () => string[]) {
    this.#rl = rl
    this.#out = out
    this.#liveLines = liveLines
  }

  stream(text: string): void {
    if (this.#closed) return this.#through(text)
    this.#erase()
    this.#previewing = false
    this.#partial += text
    this.#out.write(this.#takeFinished())
    this.#draw()
  }

  preview(text: string): void {
    if (this.#closed || text === this.#partial) return
    this.#erase()
    this.#partial = text
    this.#previewing = text !== ''
    this.#draw()
  }

  endStream(): void {
    if (this.#closed) return this.#endLine()
    if (this.#partial === '') return
    this.#erase()
    this.#out.write(`${this.#partial}\n`)
    this.#partial = ''
    if (!this.#closed) this.#draw()
  }

  print(text: string): void {
    if (this.#closed) {
      this.#endLine()
      return this.#through(`${this.#wrapped(safeStyled(text))}\n`)
    }
    this.#erase()
    // The answer's unfinished line stays in the live area, below the printed line, until it is
    // finished. Written here as if it were, a preview was printed twice (its caller streams it once
    // finished) and a streamed line was cut in two: a `/queue` typed while an answer streamed left
    // a stray fragment of it above the answer. What the transcript prints at a step's boundaries
    // (tool calls, retries, the turn's end) comes after the answer's end, which writes the line.
    this.#out.write(`${this.#wrapped(safeStyled(text))}\n`)
    if (!this.#closed) this.#draw()
  }

  refresh(): void {
    if (this.#closed) return
    this.#erase()
    this.#draw()
  }

  submitted(line: string): void {
    // Readline wrote the prompt and the line, then '\r\n': the cursor sits on the row after them.
    const rows = Math.floor(displayWidth(this.#rl.getPrompt() + line) / this.#columns())
    this.#erase(rows + 1)
  }

  close(): void {
    this.#erase()
    // A preview is its caller's: it streams the text when the answer ends (the turn's end as the
    // session closes), which would print it a second time.
    if (this.#partial !== '' && !this.#previewing) this.#out.write(`${this.#partial}\n`)
    this.#partial = ''
    this.#previewing = false
    this.#closed = true
  }

  /** After `close`: `text` as it comes, noting whether it left its line open. */
  #through(text: string): void {
    if (text === '') return
    this.#out.write(text)
    this.#openLine = !text.endsWith('\n')
  }

  /** After `close`: ends the line streamed text left open. */
  #endLine(): void {
    if (!this.#openLine) return
    this.#out.write('\n')
    this.#openLine = false
  }

  #erase(promptRow = this.#rl.getCursorPos().rows): void {
    if (!this.#drawn) return
    cursorTo(this.#out, 0)
    const up = promptRow + this.#aboveRows
    if (up > 0) moveCursor(this.#out, 0, -up)
    clearScreenDown(this.#out)
    this.#drawn = false
  }

  #draw(): void {
    const columns = this.#columns()
    let text = ''
    let rows = 0
    if (this.#partial !== '') {
      // A preview is the unfinished line as it stands, as wide as it came: drawn word-wrapped,
      // each row counted, so the next erase goes up over all of them (not one, leaving copies).
      const wrapped = wrapRows(this.#partial, columns - 1)
      text += `${wrapped.join('\n')}\n`
      rows += wrapped.length
    }
    for (const line of this.#liveLines()) {
      text += `${truncate(safeStyled(line), columns - 1)}\n`
      rows++
    }
    const prompt = this.#rl.getPrompt() + this.#rl.line
    this.#out.write(text + prompt)
    // Put the cursor where readline has it (it may be inside the line), as readline's own refresh does.
    const width = displayWidth(prompt)
    const end = { rows: Math.floor(width / columns), cols: width % columns }
    if (end.cols === 0 && width > 0) this.#out.write(' ')
    const cursor = this.#rl.getCursorPos()
    cursorTo(this.#out, cursor.cols)
    if (end.rows > cursor.rows) moveCursor(this.#out, 0, cursor.rows - end.rows)
    this.#aboveRows = rows
    this.#drawn = true
  }

  /**
   * Cuts finished lines off the partial one: up to each newline, and word-wrapped heads wider than
   * a row. A finished line is word-wrapped too: one that came whole (a rendered Markdown line, a
   * chunk holding its newline) would otherwise be cut mid-word by the terminal.
   */
  #takeFinished(): string {
    let finished = ''
    let newline = this.#partial.indexOf('\n')
    while (newline >= 0) {
      finished += `${wrapRows(this.#partial.slice(0, newline), this.#columns() - 1).join('\n')}\n`
      this.#partial = this.#partial.slice(newline + 1)
      newline = this.#partial.indexOf('\n')
    }
    const rows = wrapRows(this.#partial, this.#columns() - 1)
    this.#partial = rows.pop()!
    for (const row of rows) finished += `${row}\n`
    return finished
  }

  /**
   * Each line word-wrapped to the terminal's width, as the answer's are: the chat's own lines (the
   * banner, /help, the closing `bosun resume <id>`) would otherwise be cut mid-word, mid-id, by the
   * terminal.
   */
  #wrapped(text: string): string {
    return text.split('\n').map((line) => wrapRows(line, this.#columns() - 1).join('\n')).join('\n')
  }

  #columns(): number {
    return typeof this.#out.columns === 'number' && this.#out.columns > 10 ? this.#out.columns : 80
  }
}

/** Everything printed as it comes, for a chat whose input or output is not a terminal. */
export class PlainScreen implements Screen {
  readonly #out: OutputStream
  #atLineStart = true

  constructor(out: OutputStream) {
    this.#out = out
  }

  stream(text: string): void {
    if (text === '') return
    this.#out.write(text)
    this.#atLineStart = text.endsWith('\n')
  }

  /** Nothing to replace: a plain screen prints only what is streamed. */
  preview(): void {}

  endStream(): void {
    if (!this.#atLineStart) this.#out.write('\n')
    this.#atLineStart = true
  }

  print(text: string): void {
    this.endStream()
    this.#out.write(`${safeStyled(text)}\n`)
  }

  refresh(): void {}

  submitted(): void {}

  close(): void {
    this.endStream()
  }
}
