/**
 * Text from a session — the model's answer, tool names, arguments and results, messages, plugin
 * metadata, provider error messages — can hold terminal control sequences: OSC 52 rewrites the
 * user's clipboard, OSC 0 the window title, `CSI 2J` clears the screen, a lone CR lets later text
 * overwrite what was printed. The CLI shows such characters instead of sending them: a C0 control
 * as its Unicode control picture (ESC → `␛`, CR → `␍`, BEL → `␇`), DEL as `␡`, a C1 control
 * (U+0080–U+009F, which has no picture) as `\u009b`. Newlines and tabs are kept. The bidirectional
 * embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069) are shown as `\u202e`
 * too: they reorder how the rest of a line is drawn, so a tool argument or a file name can read
 * differently from what it is ("Trojan Source"). Marks used in real text stay: LRM/RLM, ZWJ in
 * emoji sequences, ZWNJ in Persian.
 * docs/cli.md ("Terminal safety") states which output is made safe and which stays exact.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi embedding/override/isolate controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/**
 * An SGR sequence as the CLI's own styles write them (`ESC [ 1 m`, `ESC [ 2 2 m`): colour only,
 * and the one escape sequence {@link safeStyled} lets through.
 */
const STYLE_OR_CONTROL = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** `text` with every control character but `\n` and `\t` made visible; CRLF line ends become `\n`. */
export function safeText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, visible)
}

/** A copy of a JSON value (event data, plugin metadata) whose strings, keys included, went through {@link safeText}. */
export function safeValue<T>(value: T): T {
  if (typeof value === 'string') return safeText(value) as T
  if (Array.isArray(value)) return value.map(safeValue) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [safeText(key), safeValue(item)])) as T
  }
  return value
}

/**
 * A line the CLI composed (its colours around session text), made safe as a last line of
 * defence: the CLI's own SGR colour sequences pass, any other control character is made visible.
 * Session text is escaped where it is formatted (so a colour sequence from the model is shown, not
 * applied); this catches what a formatting path forgot.
 */
export function safeStyled(text: string): string {
  return text.replace(STYLE_OR_CONTROL, (match) => (match.length > 1 ? match : visible(match)))
}

/**
 * JSON text (`--json`) that is safe on a terminal and parses to the same value: `JSON.stringify`
 * escapes C0 controls itself but writes DEL, C1 controls and the bidi controls raw. They can only
 * occur inside strings, where `\u007f` means the same character.
 */
export function safeJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * {@link safeText} for text that arrives in pieces (a streamed answer): a CR at the end of a piece
 * is held back until the next one says whether it begins a CRLF line end.
 */
export function safeStream(): { write(piece: string): string; end(): string } {
  let heldCR = false
  return {
    write(piece) {
      const text = (heldCR ? '\r' : '') + piece
      heldCR = text.endsWith('\r')
      return safeText(heldCR ? text.slice(0, -1) : text)
    },
    end() {
      const rest = heldCR ? visible('\r') : ''
      heldCR = false
      return rest
    },
  }
}

function visible(char: string): string {
  const code = char.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return '\u2421'
  return `\\u${code.toString(16).padStart(4, '0')}`
}
