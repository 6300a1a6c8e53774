import type { SchemaElement } from 'hyparquet';
import { ByteWriter, ParquetWriter, schemaFromColumnData } from 'hyparquet-writer';
import { microsToDecimal } from '../../money.ts';

/**
 * A column of an exported file: text, an identifier the server made (a click id, a settlement
 * batch: base64url, which may start with `-`, written as it is), a whole number, or money. A row
 * holds money in micros; the file writes it in currency units, exactly: CSV as decimal text
 * (`0.007`), Parquet as DECIMAL(18,6) on INT64, whose stored integer is the micros themselves.
 */
export interface FileColumn {
  name: string;
  type: 'text' | 'id' | 'integer' | 'money';
}

export type FileRow = Record<string, string | number>;

export const EXPORT_FORMATS = ['csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/** What a spreadsheet reads as the start of a formula (OWASP's list: CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number: a spreadsheet reads it as a number, never as a formula. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * A text cell a spreadsheet will not run: one that starts like a formula (`=`, `+`, `-`, `@`, tab,
 * carriage return) gets a leading `'`, which spreadsheets show as text. Names and titles come from
 * other accounts (a publisher names its block, an advertiser its ad), so a file one account opens
 * must not run what another wrote. A text that is a plain decimal number (`-12.5`) is left as it
 * is; number and money columns are written by the server from numbers, and identifier columns
 * from a fixed alphabet, so neither carries anything another account wrote.
 */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/**
 * A CSV field: a text neutralised (neutraliseFormula), then quoted when it holds a comma, quote or
 * line break (RFC 4180). Every CSV the product writes is made of these fields.
 */
export function csvField(value: string | number, type: FileColumn['type'] = 'text'): string {
  const text =
    type === 'money' ? microsToDecimal(Number(value)) : type === 'text' ? neutraliseFormula(String(value)) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line, then one chunk per page of rows: memory holds one page at a time. */
export async function* csvChunks(columns: readonly FileColumn[], pages: AsyncIterable<FileRow[]>): AsyncGenerator<Buffer> {
  yield Buffer.from(`${columns.map((column) => csvField(column.name)).join(',')}\r\n`);
  for await (const rows of pages) {
    let text = '';
    for (const row of rows)
      text += `${columns.map((column) => csvField(row[column.name] ?? (column.type === 'text' || column.type === 'id' ? '' : 0), column.type)).join(',')}\r\n`;
    yield Buffer.from(text);
  }
}

/**
 * A ByteWriter whose bytes are taken after each row group: the file is streamed a row group at a
 * time, and only the footer's metadata (a few hundred bytes per row group) stays in memory.
 */
class ChunkWriter extends ByteWriter {
  private taken: Buffer[] = [];

  flush(): void {
    this.taken.push(Buffer.from(new Uint8Array(this.buffer, 0, this.index)));
    this.index = 0;
  }

  override finish(): void {
    this.flush();
  }

  take(): Buffer[] {
    const chunks = this.taken;
    this.taken = [];
    return chunks;
  }
}

/**
 * Money in Parquet: DECIMAL(18,6) on INT64. The stored integer is the amount in micros (exact);
 * typed readers (DuckDB, Arrow, pandas through pyarrow, Spark) see currency units with 6 fraction
 * digits, up to 999,999,999,999.999999.
 */
const moneyElement = (name: string): SchemaElement => ({
  name,
  type: 'INT64',
  repetition_type: 'REQUIRED',
  converted_type: 'DECIMAL',
  scale: 6,
  precision: 18,
  logical_type: { type: 'DECIMAL', scale: 6, precision: 18 },
});

/** A Parquet file, one row group per page of rows (integers INT64, money DECIMAL, text UTF-8 strings, Snappy). */
export async function* parquetChunks(columns: readonly FileColumn[], pages: AsyncIterable<FileRow[]>): AsyncGenerator<Buffer> {
  const typed = (rows: FileRow[]) =>
    columns.map((column) =>
      column.type === 'money'
        ? { name: column.name, data: BigInt64Array.from(rows, (row) => BigInt(row[column.name] ?? 0)) }
        : column.type === 'integer'
          ? {
              name: column.name,
              type: 'INT64' as const,
              nullable: false,
              data: BigInt64Array.from(rows, (row) => BigInt(row[column.name] ?? 0)),
            }
          : {
              name: column.name,
              type: 'STRING' as const,
              nullable: false,
              data: rows.map((row) => String(row[column.name] ?? '')),
            },
    );
  const schemaOverrides = Object.fromEntries(
    columns.filter((column) => column.type === 'money').map((column) => [column.name, moneyElement(column.name)]),
  );
  const writer = new ChunkWriter();
  const parquet = new ParquetWriter({
    writer,
    schema: schemaFromColumnData({ columnData: typed([]), schemaOverrides }),
    createdBy: 'nativa',
  });
  yield* writer.take();
  for await (const rows of pages) {
    if (rows.length === 0) continue;
    await parquet.write({ columnData: typed(rows), rowGroupSize: rows.length });
    yield* writer.take();
  }
  await parquet.finish();
  yield* writer.take();
}

export function fileChunks(
  format: ExportFormat,
  columns: readonly FileColumn[],
  pages: AsyncIterable<FileRow[]>,
): AsyncGenerator<Buffer> {
  return format === 'csv' ? csvChunks(columns, pages) : parquetChunks(columns, pages);
}
