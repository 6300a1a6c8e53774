/**
 * Reads a CSV file as RFC 4180 writes it (CRLF lines, a field quoted when it holds a comma, quote
 * or line break, a quote inside doubled): the header's names, then each line as an object by name.
 * Anything else (a stray quote, a line of the wrong width) throws, so a test sees a broken file.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const lines: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    if (text[index] === '"' && field === '') {
      const end = closingQuote(text, index + 1);
      field = text.slice(index + 1, end).replaceAll('""', '"');
      index = end + 1;
      if (index < text.length && text[index] !== ',' && !text.startsWith('\r\n', index)) {
        throw new Error(`Text after a quoted field at ${index}`);
      }
      continue;
    }
    if (text[index] === ',') {
      fields.push(field);
      field = '';
      index += 1;
    } else if (text.startsWith('\r\n', index)) {
      fields.push(field);
      lines.push(fields);
      fields = [];
      field = '';
      index += 2;
    } else {
      if (text[index] === '"' || text[index] === '\n' || text[index] === '\r') {
        throw new Error(`Unquoted ${JSON.stringify(text[index])} at ${index}`);
      }
      field += text[index];
      index += 1;
    }
  }
  if (field !== '' || fields.length > 0) throw new Error('The file does not end with a line break');
  const [header = [], ...rows] = lines;
  return rows.map((row) => {
    if (row.length !== header.length) throw new Error(`A line of ${row.length} fields under ${header.length} names`);
    return Object.fromEntries(row.map((value, column) => [header[column], value]));
  });
}

function closingQuote(text: string, from: number): number {
  for (let index = from; index < text.length; index += 1) {
    if (text[index] !== '"') continue;
    if (text[index + 1] === '"') index += 1;
    else return index;
  }
  throw new Error('A quoted field that never closes');
}

/**
 * Decimal text in currency units (at most 6 fraction digits: the platform's micros) as micros,
 * read digit by digit: a figure that is not exact decimal text (`1e-7`, `0.1234567`) throws.
 */
export function decimalToMicros(text: string): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (match === null) throw new Error(`${JSON.stringify(text)} is not an amount of at most 6 fraction digits`);
  const [, sign, whole = '', fraction = ''] = match;
  const micros = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  return sign === '-' ? -micros : micros;
}
