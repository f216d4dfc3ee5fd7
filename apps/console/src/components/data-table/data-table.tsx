import type { ComponentProps, Key, ReactNode } from 'react';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';

export interface DataTableColumn<TRow> {
  id: string;
  /** The column's heading; a string is shown as is, use `srOnly` for an action column. */
  header: ReactNode;
  /** Heading only for screen readers (icon and action columns). */
  srOnly?: boolean;
  cell: (row: TRow) => ReactNode;
  headClassName?: string;
  cellClassName?: string;
  /** More attributes for the cell (a title, for example). */
  cellProps?: (row: TRow) => Omit<ComponentProps<'td'>, 'children' | 'className'>;
}

export interface DataTableProps<TRow> {
  columns: readonly DataTableColumn<TRow>[];
  rows: readonly TRow[];
  rowKey: (row: TRow) => Key;
  /** Attributes for a row (a data-testid, an onClick). */
  rowProps?: (row: TRow) => Omit<ComponentProps<'tr'>, 'children'> & { 'data-testid'?: string };
  className?: string;
}

/** The one table every list screen uses: columns declared once, rows rendered the same everywhere. */
export function DataTable<TRow>({ columns, rows, rowKey, rowProps, className }: DataTableProps<TRow>) {
  return (
    <Table className={className}>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          {columns.map((column) => (
            <TableHead key={column.id} className={column.headClassName}>
              {column.srOnly ? <span className="sr-only">{column.header}</span> : column.header}
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => (
          <TableRow key={rowKey(row)} {...rowProps?.(row)}>
            {columns.map((column) => (
              <TableCell key={column.id} className={column.cellClassName} {...column.cellProps?.(row)}>
                {column.cell(row)}
              </TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
