// A data table with TanStack Table: sortable headers, a filter, row
// selection checkboxes and pagination.
import { useState, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { useReactTable, getCoreRowModel, getSortedRowModel, getFilteredRowModel, getPaginationRowModel, flexRender } from '@tanstack/react-table';

const names = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj'];
const data = names.map((n, i) => ({ name: n, age: 20 + ((i * 7) % 30), city: ['Oslo', 'Rome', 'Lima'][i % 3] }));

function App() {
  const [sorting, setSorting] = useState([]);
  const [filter, setFilter] = useState('');
  const [selection, setSelection] = useState({});
  const columns = useMemo(() => [
    { id: 'select', header: '', cell: ({ row }) => <input type="checkbox" aria-label={'Select ' + row.original.name} checked={row.getIsSelected()} onChange={row.getToggleSelectedHandler()} /> },
    { accessorKey: 'name', header: 'Name' },
    { accessorKey: 'age', header: 'Age' },
    { accessorKey: 'city', header: 'City' },
  ], []);
  const table = useReactTable({ data, columns, state: { sorting, globalFilter: filter, rowSelection: selection },
    onSortingChange: setSorting, onGlobalFilterChange: setFilter, onRowSelectionChange: setSelection,
    getCoreRowModel: getCoreRowModel(), getSortedRowModel: getSortedRowModel(), getFilteredRowModel: getFilteredRowModel(),
    getPaginationRowModel: getPaginationRowModel(), initialState: { pagination: { pageSize: 5 } } });
  return (
    <main style={{ padding: 20 }}>
      <h1>People</h1>
      <input placeholder="Search people" value={filter} onChange={e => setFilter(e.target.value)} />
      <table>
        <thead>{table.getHeaderGroups().map(hg => <tr key={hg.id}>{hg.headers.map(h => (
          <th key={h.id} onClick={h.column.getToggleSortingHandler()} style={{ cursor: h.column.getCanSort() ? 'pointer' : 'default' }}>
            {flexRender(h.column.columnDef.header, h.getContext())}{{ asc: ' ▲', desc: ' ▼' }[h.column.getIsSorted()] ?? ''}
          </th>))}</tr>)}</thead>
        <tbody>{table.getRowModel().rows.map(r => <tr key={r.id}>{r.getVisibleCells().map(c => <td key={c.id}>{flexRender(c.column.columnDef.cell, c.getContext())}</td>)}</tr>)}</tbody>
      </table>
      <button onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>Previous</button>
      <span> Page {table.getState().pagination.pageIndex + 1} of {table.getPageCount()} </span>
      <button onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>Next</button>
      <p id="out">{Object.keys(selection).map(i => data[i].name).join(',')}</p>
    </main>
  );
}
createRoot(document.getElementById('root')).render(<App />);
