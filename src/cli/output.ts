/** Prints records for people (aligned columns) or for scripts (`--json`). */
export function printRecords(records: unknown, json: boolean, columns?: string[]): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
    return;
  }
  const rows = (Array.isArray(records) ? records : [records]) as Record<string, unknown>[];
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  if (!Array.isArray(records)) {
    const width = Math.max(...Object.keys(rows[0] ?? {}).map((key) => key.length));
    for (const [key, value] of Object.entries(rows[0] ?? {})) {
      process.stdout.write(`${key.padEnd(width)}  ${format(value)}\n`);
    }
    return;
  }
  const keys = columns ?? Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => keys.map((key) => format(row[key])));
  const widths = keys.map((key, column) => Math.max(key.length, ...cells.map((line) => (line[column] ?? '').length)));
  const line = (values: string[]) =>
    values
      .map((value, column) => value.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(keys)}\n`);
  for (const row of cells) process.stdout.write(`${line(row)}\n`);
}

function format(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
