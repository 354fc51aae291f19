import { displayWidth, truncate, type Style } from './output.js'

/**
 * A way to make a table narrower when its rows do not fit the terminal: the column with this
 * header left out, or (with `cells`) shown with these shorter cells, one per row.
 */
export interface Narrower {
  header: string
  cells?: string[]
}

/** The narrowest the last column is cut to before a {@link Narrower} is applied. */
const MIN_LAST = 12

/**
 * Aligned columns, header first. The last column is cut to the terminal's width with an ellipsis
 * (or to `maxLast` columns off a terminal) so that each row stays one line. On a terminal too
 * narrow to leave the last column `MIN_LAST` columns, the `narrower` steps apply in their order
 * until it does; the other columns are never cut (an id must stay whole to be copied). Off a
 * terminal (`width` undefined) nothing is left out: the output is the same whatever the width.
 */
export function table(headers: string[], rows: string[][], style: Style, width: number | undefined, maxLast = 60, narrower: readonly Narrower[] = []): string[] {
  let columns = headers.map((header, index) => ({ header, cells: rows.map((row) => row[index] ?? '') }))
  const lead = () => columns.slice(0, -1).reduce((sum, column) => sum + columnWidth(column) + 2, 0)
  if (width !== undefined) {
    for (const step of narrower) {
      if (width - lead() - 1 >= MIN_LAST) break
      columns = step.cells === undefined ? columns.filter(({ header }) => header !== step.header) : columns.map((column) => (column.header === step.header ? { header: column.header, cells: step.cells! } : column))
    }
  }
  const widths = columns.map(columnWidth)
  const lastWidth = width === undefined ? maxLast : Math.max(10, width - lead() - 1)
  const render = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? truncate(cell, lastWidth) : cell + ' '.repeat(widths[column]! - displayWidth(cell))))
      .join('  ')
      .trimEnd()
  return [style.bold(render(columns.map(({ header }) => header))), ...rows.map((_, row) => render(columns.map(({ cells }) => cells[row]!)))]
}

function columnWidth(column: { header: string; cells: string[] }): number {
  return Math.max(displayWidth(column.header), ...column.cells.map(displayWidth))
}
