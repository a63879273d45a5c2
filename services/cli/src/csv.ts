/** A plain number, negative or with decimals: a spreadsheet reads it as a number, never as a formula. */
const NUMBER = /^-?\d+(?:\.\d+)?$/;

/** What makes a spreadsheet read a cell as a formula (tab and carriage return: some strip them first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell safe to open in a spreadsheet: text that would start a formula (a name such as
 * `=HYPERLINK(...)`) gets a leading apostrophe, which spreadsheets show as text and do not run; plain
 * numbers, negative ones included, stay numbers.
 */
function inertCell(value: string): string {
  return !NUMBER.test(value) && FORMULA_START.test(value) ? `'${value}` : value;
}

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV line (without its line break) of cells that no spreadsheet runs as formulas. */
export function csvLine(cells: string[]): string {
  return cells.map((cell) => csvField(inertCell(cell))).join(',');
}
