/** The "Examples:" block of a command's help: each command line, its note aligned after it, then an optional paragraph. */
export function examples(rows: [string, string][], note?: string): string {
  const width = Math.max(...rows.map(([command]) => command.length))
  const lines = rows.map(([command, text]) => `  $ ${command.padEnd(width)}${text ? `  ${text}` : ''}`.trimEnd())
  return `\nExamples:\n${lines.join('\n')}${note ? `\n\n${note}` : ''}`
}
