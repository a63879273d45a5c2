/** One record of a CSV file and the line it starts on (1 is the first line). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/**
 * The records of an RFC 4180 file: fields separated by commas, quoted fields holding commas, doubled
 * quotes and line breaks; CRLF or LF line ends; blank lines skipped. An unterminated quote is an error
 * naming the line it opened on.
 */
export function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let quotedAt = 0;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '') records.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  while (i < text.length) {
    const char = text[i]!;
    if (quotedAt > 0) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (char === '"') quotedAt = 0;
      else {
        if (char === '\n') line += 1;
        cell += char;
      }
      i += 1;
      continue;
    }
    if (char === '"' && cell === '') quotedAt = line;
    else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      start = line;
    } else cell += char;
    i += 1;
  }
  if (quotedAt > 0) throw new Error(`line ${quotedAt}: a quoted field is never closed`);
  endRecord();
  return records;
}
