/**
 * Workspace tables: each with its columns (schema) and row count; its rows a
 * page at a time, filtered in the page by a column's text, and the rows
 * loaded saved as CSV.
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { ErrorBanner, Loading, TextField } from '../components/ui';

interface Table {
  workspace_id: string;
  table_name: string;
  columns: Array<{ name: string; type: string }>;
  row_count: number;
  created_at: string;
}

type Row = Record<string, unknown>;

const PAGE = 50;

/** CSV text of `rows` over `columns` (RFC 4180 quoting). */
export function toCsv(columns: string[], rows: Row[]): string {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [columns.map(cell).join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n');
}

export function WorkspaceTables() {
  const [tables, setTables] = useState<Table[] | null>(null);
  const [open, setOpen] = useState<Table | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<{ tables: Table[] }>('GET', '/api/agent-factory/workspace/tables').then(
      (r) => setTables(r.tables),
      (err) => setError(err),
    );
  }, []);
  return (
    <section aria-labelledby="tables-title">
      <h2 id="tables-title">Tables</h2>
      <ErrorBanner error={error} />
      {tables === null ? (
        error ? null : <Loading what="tables" />
      ) : tables.length === 0 ? (
        <p>No tables yet: a playbook's output can save rows to one.</p>
      ) : (
        <ul className="cards">
          {tables.map((t) => (
            <li key={`${t.workspace_id}/${t.table_name}`} className="card">
              <h3>{t.table_name}</h3>
              <p className="hint">
                {t.row_count} rows · {t.columns.map((c) => `${c.name}: ${c.type}`).join(', ')}
              </p>
              <button onClick={() => setOpen(t)} aria-label={`Open table ${t.table_name}`}>
                Rows
              </button>
            </li>
          ))}
        </ul>
      )}
      {open ? <TableRows table={open} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}

function TableRows({ table, onClose }: { table: Table; onClose(): void }) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [column, setColumn] = useState(table.columns[0]?.name ?? '');
  const [filter, setFilter] = useState('');
  const [error, setError] = useState<unknown>(null);
  const path = `/api/agent-factory/workspace/tables/${encodeURIComponent(table.workspace_id)}/${encodeURIComponent(table.table_name)}/rows`;
  const load = useCallback(
    async (pageToken?: string) => {
      try {
        const r = await api<{ rows: Row[]; next_page_token: string | null }>('GET', `${path}?page_size=${PAGE}${pageToken ? `&page_token=${encodeURIComponent(pageToken)}` : ''}`);
        setRows((old) => (pageToken ? [...(old ?? []), ...r.rows] : r.rows));
        setNext(r.next_page_token);
      } catch (err) {
        setError(err);
      }
    },
    [path],
  );
  useEffect(() => void load(), [load]);
  const columns = [...table.columns.map((c) => c.name), '_source', '_timestamp'];
  const shown = (rows ?? []).filter((r) => !filter || String(r[column] ?? '').toLowerCase().includes(filter.toLowerCase()));
  const saveCsv = () => {
    const url = URL.createObjectURL(new Blob([toCsv(columns, shown)], { type: 'text/csv' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${table.table_name}.csv`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <div className="panel" role="region" aria-label={`Table ${table.table_name}`}>
      <h3>{table.table_name}</h3>
      <ErrorBanner error={error} />
      <div className="filters">
        <div className="field">
          <label htmlFor="table-filter-column">Filter column</label>
          <select id="table-filter-column" value={column} onChange={(e) => setColumn(e.target.value)}>
            {columns.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <TextField label="Contains" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      {rows === null ? (
        <Loading what="rows" />
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((r, i) => (
                <tr key={i}>
                  {columns.map((c) => (
                    <td key={c}>{r[c] === null || r[c] === undefined ? '' : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="hint">
        {shown.length} of {rows?.length ?? 0} loaded rows shown ({table.row_count} in the table)
      </p>
      <div className="actions">
        {next ? <button onClick={() => void load(next)}>More rows</button> : null}
        <button onClick={saveCsv}>Save shown rows as CSV</button>
        <button onClick={onClose}>Close</button>
      </div>
    </div>
  );
}
