// The `bosun …` command lines a Markdown page shows, for docs-flags.test.ts: a command is read only
// where a page writes one — in a code span (to the span's end) or in a fenced code block (to the
// end of its shell command, across `\`-continued lines). Prose is never read as a command: the
// words after "bosun serve" in a sentence are not its flags.

export interface DocCommand {
  /** The 1-based line of the page where the command starts. */
  line: number
  /** From `bosun` to the end of the command, continued lines joined with a space. */
  text: string
}

/**
 * Where a shell command ends inside a line: a pipe, `;`, `&&`/`&` or a `#` comment. Not `<` or
 * `>`: the docs write placeholders as `<id>`, far more often than a redirect.
 */
const END_OF_COMMAND = /\s(?:&|#)|[|;]/

/** `bosun` as a word followed by a command word; `@bosun/cli`, `bosun.config.ts` and `create-bosun-plugin` are not. */
const BOSUN = /(?<![\w@/.-])bosun (?=[a-z])/g

/** Each `bosun <command> …` in `code`, cut where the shell command ends. */
function commandsIn(code: string, line: number): DocCommand[] {
  return [...code.matchAll(BOSUN)].map((match) => {
    const from = code.slice(match.index)
    const end = END_OF_COMMAND.exec(from)
    return { line, text: (end === null ? from : from.slice(0, end.index)).trim() }
  })
}

/** The lines of a fenced block joined where one ends in `\`, each with the line it starts on. */
function logicalLines(lines: readonly string[], first: number): { line: number; text: string }[] {
  const joined: { line: number; text: string }[] = []
  let open: { line: number; text: string } | undefined
  lines.forEach((text, i) => {
    const continued = /\\\s*$/.test(text)
    const part = continued ? text.replace(/\s*\\\s*$/, '') : text
    if (open === undefined) open = { line: first + i, text: part }
    else open.text += ` ${part.trim()}`
    if (!continued) {
      joined.push(open)
      open = undefined
    }
  })
  if (open !== undefined) joined.push(open)
  return joined
}

/** Every `bosun …` command line of a Markdown page, in code spans and fenced code blocks. */
export function docCommands(markdown: string): DocCommand[] {
  const lines = markdown.split('\n')
  const found: DocCommand[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*(`{3,}|~{3,})/.exec(lines[i]!)
    if (fence !== null) {
      // The block runs to a closing fence of the same kind, at least as long (or to the page's end).
      const closing = new RegExp(`^\\s*${fence[1]![0]}{${fence[1]!.length},}\\s*$`)
      let end = i + 1
      while (end < lines.length && !closing.test(lines[end]!)) end++
      for (const { line, text } of logicalLines(lines.slice(i + 1, end), i + 2)) found.push(...commandsIn(text, line))
      i = end
      continue
    }
    // Code spans: a run of backticks up to the same run (CommonMark), on one line.
    for (const span of lines[i]!.matchAll(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g)) found.push(...commandsIn(span[2]!, i + 1))
  }
  return found
}
