// A CSV reader with the rules of Go's encoding/csv (FieldsPerRecord -1, no comments, no space trimming):
// quoted fields may hold commas, newlines and doubled quotes; a stray quote is an error; blank lines are skipped.

export class CsvError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(line: number, column: number, problem: string) {
    super(`parse error on line ${line}, column ${column}: ${problem}`);
    this.name = 'CsvError';
    this.line = line;
    this.column = column;
  }
}

export function parseCsv(text: string): string[][] {
  const src = text.replace(/\r\n/g, '\n');
  const records: string[][] = [];
  let i = 0;
  let line = 1;
  while (i < src.length) {
    if (src[i] === '\n') {
      // An empty line is no record.
      i++;
      line++;
      continue;
    }
    const record: string[] = [];
    let lineStart = i;
    for (;;) {
      if (src[i] === '"') {
        // Quoted field.
        let value = '';
        i++;
        for (;;) {
          if (i >= src.length) throw new CsvError(line, i - lineStart + 1, 'extraneous or missing " in quoted-field');
          const c = src[i];
          if (c === '"') {
            if (src[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') {
            line++;
            lineStart = i + 1;
          }
          value += c;
          i++;
        }
        record.push(value);
        if (i < src.length && src[i] !== ',' && src[i] !== '\n') {
          throw new CsvError(line, i - lineStart + 1, 'extraneous or missing " in quoted-field');
        }
      } else {
        let end = i;
        while (end < src.length && src[end] !== ',' && src[end] !== '\n') {
          if (src[end] === '"') throw new CsvError(line, end - lineStart + 1, 'bare " in non-quoted-field');
          end++;
        }
        record.push(src.slice(i, end));
        i = end;
      }
      if (i < src.length && src[i] === ',') {
        i++;
        continue;
      }
      // End of record: newline or end of input.
      if (i < src.length) {
        i++;
        line++;
      }
      break;
    }
    records.push(record);
  }
  return records;
}
