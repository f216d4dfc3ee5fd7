import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DataTable, type DataTableColumn } from './data-table';

interface Row {
  id: number;
  name: string;
  seen: string;
}

const columns: DataTableColumn<Row>[] = [
  { id: 'name', header: 'Name', cell: (row) => row.name },
  { id: 'seen', header: 'Last seen', cell: (row) => row.seen, cellProps: (row) => ({ title: `at ${row.seen}` }) },
  { id: 'actions', header: 'Actions', srOnly: true, cell: (row) => <button type="button">Edit {row.name}</button> },
];

describe('DataTable', () => {
  it('renders one header row and one row per item, cells in column order', () => {
    render(
      <DataTable
        columns={columns}
        rows={[
          { id: 1, name: 'Ada', seen: 'today' },
          { id: 2, name: 'Linus', seen: 'yesterday' },
        ]}
        rowKey={(row) => row.id}
        rowProps={(row) => ({ 'data-testid': `row-${row.id}` })}
      />,
    );
    expect(screen.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['Name', 'Last seen', 'Actions']);
    expect(screen.getByText('Actions')).toHaveClass('sr-only');
    const second = screen.getByTestId('row-2');
    expect(
      within(second)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['Linus', 'yesterday', 'Edit Linus']);
    expect(within(second).getByText('yesterday')).toHaveAttribute('title', 'at yesterday');
  });
});
