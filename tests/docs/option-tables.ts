// Reads the option tables of a Markdown page and compares them with an options JSON Schema: the
// check tests/docs/options.test.ts runs on every adapter, store and plugin README and on
// docs/config.md, and packages/host/test/docs-options.test.ts on docs/host.md. An option table is
// one whose header has a "type" and a "default" column; its first cell names the option.

export type Schema = { [key: string]: unknown }
export interface OptionRow { name: string; cells: string[]; line: number }

/** Every property name of the schema at any depth (properties, items, branches, maps, local $refs). */
export function propertyNames(schema: Schema, top: Schema = schema, seen = new Set<unknown>()): Set<string> {
  const names = new Set<string>()
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return
    seen.add(node)
    const s = node as Schema
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) visit(s.$ref.slice(2).split('/').reduce<any>((at, key) => at?.[key], top))
    for (const [name, sub] of Object.entries((s.properties ?? {}) as Schema)) { names.add(name); visit(sub) }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) for (const branch of (s[key] ?? []) as unknown[]) visit(branch)
    for (const key of ['items', 'additionalProperties', 'then', 'else']) [s[key]].flat().forEach(visit)
    for (const sub of Object.values((s.patternProperties ?? {}) as Schema)) visit(sub)
  }
  visit(schema)
  return names
}

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
      for (const [, name] of cells[0]!.matchAll(/`([A-Za-z$][\w$]*)`/g)) rows.push({ name: name!, cells, line: j + 1 })
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
  for (const row of rows) {
    if (!all.has(row.name) && !codeOnly.test(row.cells.join('|'))) problems.push(`${where}:${row.line}: "${row.name}" is documented but is not an option (its schema has no such property; say "code only" if only code can give it)`)
  }
  return problems
}
