// Reads the option tables of a Markdown page and compares them with an options JSON Schema: the
// check tests/docs/options.test.ts runs on every adapter, store and plugin README and on
// docs/config.md, and packages/host/test/docs-options.test.ts on docs/host.md. An option table is
// one whose header has a "type" and a "default" column; its first cell names the option.

export type Schema = { [key: string]: unknown }
export interface OptionRow { name: string; cells: string[]; line: number; defaultCell: string }

/** Calls `found` with each property of the schema at any depth (properties, items, branches, maps, local $refs). */
function eachProperty(schema: Schema, found: (name: string, sub: Schema) => void): void {
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return
    seen.add(node)
    const s = node as Schema
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) visit(s.$ref.slice(2).split('/').reduce<any>((at, key) => at?.[key], schema))
    for (const [name, sub] of Object.entries((s.properties ?? {}) as Schema)) { found(name, sub as Schema); visit(sub) }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) for (const branch of (s[key] ?? []) as unknown[]) visit(branch)
    for (const key of ['items', 'additionalProperties', 'then', 'else']) [s[key]].flat().forEach(visit)
    for (const sub of Object.values((s.patternProperties ?? {}) as Schema)) visit(sub)
  }
  visit(schema)
}

/** Every property name of the schema at any depth. */
export function propertyNames(schema: Schema): Set<string> {
  const names = new Set<string>()
  eachProperty(schema, (name) => names.add(name))
  return names
}

/** A value as a table cell may write it, compared without quotes, backticks, spaces or digit separators: `['a', 'b']` and `["a","b"]`, `60000` and `60,000`. */
const bare = (text: string) => text.replace(/[`'"\s_]/g, '').replace(/(?<=\d),(?=\d{3})/g, '')

/** The rows of the Markdown tables whose header has a "type" and a "default" column. */
export function optionRows(markdown: string): { rows: OptionRow[]; text: string } {
  const lines = markdown.split('\n')
  const rows: OptionRow[] = []
  const tableText: string[] = []
  const cellsOf = (line: string) => line.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((cell) => cell.trim())
  for (let i = 0; i < lines.length; i++) {
    const header = lines[i]!
    if (!header.startsWith('|') || (i > 0 && lines[i - 1]!.startsWith('|'))) continue
    const columns = cellsOf(header).map((cell) => cell.toLowerCase())
    if (!columns.includes('type') || !columns.includes('default')) continue
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) {
      tableText.push(lines[j]!)
      const cells = cellsOf(lines[j]!)
      // `url` / `urlEnv`: one row for two options.
      const defaultCell = cells[columns.indexOf('default')] ?? ''
      for (const [, name] of cells[0]!.matchAll(/`([A-Za-z$][\w$]*)`/g)) rows.push({ name: name!, cells, line: j + 1, defaultCell })
    }
  }
  return { rows, text: tableText.join('\n') }
}

/** Checks a schema against its documentation; returns each problem as a sentence. */
export function problemsOf(schema: Schema, markdown: string, where: string, codeOnly = /code only/i): string[] {
  const problems: string[] = []
  const { rows, text } = optionRows(markdown)
  const all = propertyNames(schema)
  const top = Object.keys((schema.properties ?? {}) as Schema)
  for (const name of top) {
    const row = rows.find((r) => r.name === name)
    if (row === undefined) problems.push(`${where}: option "${name}" has no row in an option table (option | type | default | what it does)`)
    else if (row.cells.length < 4 || row.cells.slice(1, 4).some((cell) => cell === '')) problems.push(`${where}:${row.line}: the row of "${name}" needs its type, default and what it does`)
  }
  for (const name of all) {
    if (!top.includes(name) && !new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(text)) problems.push(`${where}: "${name}" (a field of a nested option) is not named in the option tables`)
  }
  // A default the schema declares is the one the row shows.
  eachProperty(schema, (name, sub) => {
    if (!('default' in sub)) return
    const row = rows.find((r) => r.name === name)
    const value = bare(JSON.stringify(sub.default)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    if (row !== undefined && !new RegExp(`(^|[^\\w.])${value}($|[^\\w.])`).test(bare(row.defaultCell))) problems.push(`${where}:${row.line}: the default of "${name}" is ${JSON.stringify(sub.default)}, the row says ${row.defaultCell}`)
  })
  for (const row of rows) {
    if (!all.has(row.name) && !codeOnly.test(row.cells.join('|'))) problems.push(`${where}:${row.line}: "${row.name}" is documented but is not an option (its schema has no such property; say "code only" if only code can give it)`)
  }
  return problems
}
