import type { ReactNode } from 'react';
import { ScrollRegion } from './scroll-region.tsx';

/** A column of a DataTable: its heading and what each row shows under it. */
export interface Column<Row> {
  head: string;
  /** The heading is for screen readers only (a column of buttons). */
  hiddenHead?: boolean;
  /** The cell names its row (`<th scope="row">`): a screen reader reads it before each other cell. */
  rowHeader?: boolean;
  /** Figures, aligned on the right. */
  numeric?: boolean;
  cell: (row: Row) => ReactNode;
  /** The cell's tooltip, when it shortens something (a device read from its whole User-Agent). */
  title?: (row: Row) => string | undefined;
}

/**
 * A table of rows, one column per `columns` entry (`false` leaves a column out): headings with
 * their scope, the row's name in a row header, and the ScrollRegion that lets a phone scroll it
 * sideways. `empty`, when given, is said under the headings while there are no rows (give it once
 * the list has loaded).
 */
export function DataTable<Row>({
  label,
  className,
  columns,
  rows,
  rowKey,
  empty,
}: {
  /** The scroll region's name, what the table holds. */
  label: string;
  className?: string;
  columns: readonly (Column<Row> | false)[];
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
  empty?: ReactNode;
}) {
  const shown = columns.filter((column): column is Column<Row> => column !== false);
  const numeric = (column: Column<Row>) => (column.numeric ? 'num' : undefined);
  return (
    <ScrollRegion label={label}>
      <table className={className}>
        <thead>
          <tr>
            {shown.map((column) => (
              <th key={column.head} scope="col" className={numeric(column)}>
                {column.hiddenHead ? <span className="visually-hidden">{column.head}</span> : column.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {shown.map((column) =>
                column.rowHeader ? (
                  <th key={column.head} scope="row" className={numeric(column)} title={column.title?.(row)}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.head} className={numeric(column)} title={column.title?.(row)}>
                    {column.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {empty && rows.length === 0 && <p className="empty">{empty}</p>}
    </ScrollRegion>
  );
}
