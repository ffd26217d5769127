/**
 * Workspace tables: each with its columns (schema) and row count; its rows a
 * page at a time, filtered by the server (`filter.<column>=<value>`: rows
 * whose column equals the value), and exported by the server (csv, json,
 * markdown, xlsx) as a file with an expiring download link; the list of
 * the user's exports.
 */
import { useCallback, useEffect, useState } from 'react';
import { api, ApiError, download } from '../api/client';
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

interface Export {
  export_id: string;
  filename: string;
  format: string;
  size_bytes: number;
  created_at: string;
  expires_at: string;
  expired: boolean;
  download_url: string;
}

const FORMATS = ['csv', 'json', 'markdown', 'xlsx'] as const;

export function WorkspaceTables() {
  const [tables, setTables] = useState<Table[] | null>(null);
  const [open, setOpen] = useState<Table | null>(null);
  const [exports, setExports] = useState<Export[]>([]);
  const [error, setError] = useState<unknown>(null);
  const loadExports = useCallback(() => {
    api<{ exports: Export[] }>('GET', '/api/agent-factory/workspace/exports?page_size=20').then(
      (r) => setExports(r.exports),
      (err) => setError(err),
    );
  }, []);
  useEffect(() => {
    api<{ tables: Table[] }>('GET', '/api/agent-factory/workspace/tables').then(
      (r) => setTables(r.tables),
      (err) => setError(err),
    );
    loadExports();
  }, [loadExports]);
  const fetchExport = async (e: Export) => {
    setError(null);
    try {
      await download(e.download_url, e.filename);
    } catch (err) {
      setError(err);
    }
  };
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
                Open
              </button>
            </li>
          ))}
        </ul>
      )}
      {open ? <TableRows table={open} onClose={() => setOpen(null)} onExported={loadExports} /> : null}
      <h3 id="exports-title">Exports</h3>
      {exports.length === 0 ? (
        <p>No exports yet.</p>
      ) : (
        <ul aria-labelledby="exports-title">
          {exports.map((e) => (
            <li key={e.export_id}>
              <strong>{e.filename}</strong>{' '}
              <span className="hint">
                {e.format} · {e.size_bytes} bytes · {new Date(e.created_at).toLocaleString()} ·{' '}
                {e.expired ? 'link expired' : `link until ${new Date(e.expires_at).toLocaleString()}`}
              </span>{' '}
              {e.expired ? null : (
                <button onClick={() => void fetchExport(e)} aria-label={`Download ${e.filename}`}>
                  Download
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function TableRows({ table, onClose, onExported }: { table: Table; onClose(): void; onExported(): void }) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [column, setColumn] = useState(table.columns[0]?.name ?? '');
  const [value, setValue] = useState('');
  /** The filter the rows shown were loaded with (applied on the server). */
  const [applied, setApplied] = useState<{ column: string; value: string } | null>(null);
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('csv');
  const [exported, setExported] = useState<Export | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = `/api/agent-factory/workspace/tables/${encodeURIComponent(table.workspace_id)}/${encodeURIComponent(table.table_name)}`;
  const load = useCallback(
    async (pageToken?: string) => {
      setError(null);
      try {
        const params = new URLSearchParams({ page_size: String(PAGE) });
        if (applied) params.set(`filter.${applied.column}`, applied.value);
        if (pageToken) params.set('page_token', pageToken);
        const r = await api<{ rows: Row[]; next_page_token: string | null }>('GET', `${base}/rows?${params.toString()}`);
        setRows((old) => (pageToken ? [...(old ?? []), ...r.rows] : r.rows));
        setNext(r.next_page_token);
      } catch (err) {
        setError(err);
      }
    },
    [base, applied],
  );
  useEffect(() => void load(), [load]);
  const columns = [...table.columns.map((c) => c.name), '_source', '_timestamp'];
  const filterable = [...table.columns.map((c) => c.name), '_source', '_query'];
  const exportRows = async () => {
    setError(null);
    setExported(null);
    try {
      const r = await api<{ export_id: string; filename: string; download_url: string; expires_at: string; format: string; size_bytes: number }>('POST', `${base}/export`, {
        body: { format, ...(applied ? { filters: { [applied.column]: applied.value } } : {}) },
      });
      setExported({ ...r, created_at: new Date().toISOString(), expired: false });
      onExported();
    } catch (err) {
      setError(err);
    }
  };
  const filterError = applied && error instanceof ApiError ? error.forField(`filter.${applied.column}`) : undefined;
  return (
    <div className="panel" role="region" aria-label={`Table ${table.table_name}`}>
      <h3>{table.table_name}</h3>
      <ErrorBanner error={error} fields={applied ? [`filter.${applied.column}`] : []} />
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(value === '' ? null : { column, value });
        }}
      >
        <div className="field">
          <label htmlFor="table-filter-column">Filter column</label>
          <select id="table-filter-column" value={column} onChange={(e) => setColumn(e.target.value)}>
            {filterable.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <TextField label="Equals" type="search" value={value} onChange={(e) => setValue(e.target.value)} error={filterError} />
        <button type="submit">Filter</button>
        {applied ? (
          <button
            type="button"
            onClick={() => {
              setValue('');
              setApplied(null);
            }}
          >
            Clear filter
          </button>
        ) : null}
      </form>
      {rows === null ? (
        error ? null : <Loading what="rows" />
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
              {rows.map((r, i) => (
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
        {rows?.length ?? 0} rows loaded{applied ? ` where ${applied.column} = ${applied.value}` : ''} ({table.row_count} in the table)
      </p>
      <div className="actions">
        {next ? <button onClick={() => void load(next)}>More rows</button> : null}
        <div className="field">
          <label htmlFor="table-export-format">Export format</label>
          <select id="table-export-format" value={format} onChange={(e) => setFormat(e.target.value as (typeof FORMATS)[number])}>
            {FORMATS.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </div>
        <button onClick={() => void exportRows()}>{applied ? 'Export filtered rows' : 'Export all rows'}</button>
        <button onClick={onClose}>Close</button>
      </div>
      {exported ? (
        <p role="status">
          Exported {exported.filename}: <button className="link" onClick={() => void download(exported.download_url, exported.filename).catch(setError)}>download</button> (link until{' '}
          {new Date(exported.expires_at).toLocaleString()})
        </p>
      ) : null}
    </div>
  );
}
