import type { ComponentChildren } from 'preact';

export interface Column<Row> {
  readonly key: string;
  readonly header: string;
  readonly cell: (row: Row) => ComponentChildren;
  /** A narrow column that keeps to one line (numbers, times). */
  readonly nowrap?: boolean;
}

interface TableProps<Row> {
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  /** The row a detail panel shows, highlighted. */
  selected?: string | null;
  busy?: boolean;
}

/**
 * A data table with a sticky header that scrolls inside its own box (never the page). On
 * narrow screens each cell shows its column name beside its value.
 */
export function Table<Row>({ caption, columns, rows, rowKey, selected, busy }: TableProps<Row>) {
  return (
    <div class="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table class="table" aria-busy={busy || undefined}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.key} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = rowKey(row);
            return (
              <tr key={key} data-key={key} class={selected === key ? 'is-selected' : undefined}>
                {columns.map((column) => (
                  <td key={column.key} data-label={column.header} class={column.nowrap ? 'nowrap' : undefined}>
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
