import { displayWidth, truncate, type Style } from './output.js'

/**
 * Aligned columns, header first. The last column is cut to the terminal's width (or to
 * `maxLast` columns off a terminal) so that each row stays one line.
 */
export function table(headers: string[], rows: string[][], style: Style, width: number | undefined, maxLast = 60): string[] {
  const widths = headers.map((header, column) => Math.max(displayWidth(header), ...rows.map((row) => displayWidth(row[column] ?? ''))))
  const lead = widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0)
  const lastWidth = width === undefined ? maxLast : Math.max(10, width - lead - 1)
  const render = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? truncate(cell, lastWidth) : cell + ' '.repeat(widths[column]! - displayWidth(cell))))
      .join('  ')
      .trimEnd()
  return [style.bold(render(headers)), ...rows.map(render)]
}
