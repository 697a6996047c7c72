/** Plain-text tables as kubectl prints them: columns padded to their widest cell, two spaces apart. */

/** The widths that fit the header and every row. */
export function columnWidths(header: readonly string[], rows: readonly (readonly string[])[]): number[] {
  return header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
}

/** One line of cells padded to `widths` (the last cell is not padded, so no line ends in spaces). */
export function tableLine(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
    .join('  ')
    .trimEnd();
}

/** The header and the rows, aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = columnWidths(header, rows);
  return [header, ...rows].map((r) => tableLine(r, widths));
}
