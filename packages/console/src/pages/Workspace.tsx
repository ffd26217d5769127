/**
 * The workspace: folders (create, delete an empty one), documents (search,
 * filter by folder, read a text document, download any, move to a folder,
 * write a new one — the API's errors under each field), tables, and
 * notifications (an export's download link, mark all read).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, download, query } from '../api/client';
import { WorkspaceTables } from './WorkspaceTables';
import { ErrorBanner, Loading, TextArea, TextField } from '../components/ui';

interface Doc {
  id: string;
  title: string;
  folder_path: string;
  content_type: string;
  size_bytes: number;
  version: number;
  updated_at: string;
}

interface Folder {
  id: string;
  name: string;
  parent_id: string | null;
  path: string;
}

interface Notification {
  action_url: string | null;
  action_label: string | null;
  id: string;
  title: string;
  message: string;
  priority: string;
  read: boolean;
  created_at: string;
}

export default function WorkspacePage() {
  const [docs, setDocs] = useState<Doc[] | null>(null);
  const [search, setSearch] = useState('');
  const [folders, setFolders] = useState<Folder[]>([]);
  const [folderId, setFolderId] = useState('');
  const [notes, setNotes] = useState<Notification[]>([]);
  const [unread, setUnread] = useState(0);
  const [open, setOpen] = useState<{ doc: Doc; content: string | null } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      const [d, n, f] = await Promise.all([
        api<{ documents: Doc[] }>('GET', `/api/agent-factory/workspace/documents${query({ query: search, folder_id: folderId })}`),
        api<{ notifications: Notification[]; unread_count: number }>('GET', '/api/agent-factory/workspace/notifications?page_size=20'),
        api<{ folders: Folder[] }>('GET', '/api/agent-factory/workspace/folders'),
      ]);
      setDocs(d.documents);
      setFolders(f.folders);
      setNotes(n.notifications);
      setUnread(n.unread_count);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [search, folderId]);
  useEffect(() => {
    const t = setTimeout(() => void load(), 250);
    return () => clearTimeout(t);
  }, [load]);
  const read = async (doc: Doc) => {
    const r = await api<{ document: Doc; content?: string | null }>('GET', `/api/agent-factory/workspace/documents/${encodeURIComponent(doc.id)}`);
    setOpen({ doc, content: r.content ?? null });
  };
  const fetchFile = async (path: string, name: string) => {
    setError(null);
    try {
      await download(path, name);
    } catch (err) {
      setError(err);
    }
  };
  const move = async (doc: Doc, to: string) => {
    setError(null);
    try {
      await api('POST', `/api/agent-factory/workspace/documents/${encodeURIComponent(doc.id)}/move`, { body: { folder_id: to || null } });
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const markAll = async () => {
    await api('POST', '/api/agent-factory/workspace/notifications/read', { body: { all: true } });
    void load();
  };
  return (
    <section aria-labelledby="ws-title">
      <h1 id="ws-title">Workspace</h1>
      <ErrorBanner error={error} />
      <Folders folders={folders} onChange={load} />
      <h2>Documents</h2>
      <div className="filters">
        <TextField label="Search documents" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        <div className="field">
          <label htmlFor="doc-folder">Folder</label>
          <select id="doc-folder" value={folderId} onChange={(e) => setFolderId(e.target.value)}>
            <option value="">all</option>
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path}
              </option>
            ))}
          </select>
        </div>
      </div>
      {docs === null ? (
        <Loading what="documents" />
      ) : docs.length === 0 ? (
        <p>No documents{search ? ' match' : ' yet'}.</p>
      ) : (
        <ul className="cards">
          {docs.map((d) => (
            <li key={d.id} className="card">
              <h3>{d.title}</h3>
              <p className="hint">
                {d.folder_path || '/'} · {d.content_type} · {d.size_bytes} bytes · version {d.version}
              </p>
              <div className="actions">
                <button onClick={() => void read(d)} aria-label={`Open ${d.title}`}>
                  Open
                </button>
                <button onClick={() => void fetchFile(`/api/agent-factory/workspace/documents/${encodeURIComponent(d.id)}/download`, d.title)} aria-label={`Download ${d.title}`}>
                  Download
                </button>
              </div>
              {folders.length ? (
                <div className="field">
                  <label htmlFor={`move-${d.id}`}>Move to</label>
                  <select id={`move-${d.id}`} value="" onChange={(e) => void move(d, e.target.value === '/' ? '' : e.target.value)}>
                    <option value="">choose…</option>
                    <option value="/">/ (top)</option>
                    {folders.map((f) => (
                      <option key={f.id} value={f.id}>
                        {f.path}
                      </option>
                    ))}
                  </select>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {open ? (
        <div className="panel" role="region" aria-label={`Document ${open.doc.title}`}>
          <h2>{open.doc.title}</h2>
          {open.content !== null ? <pre tabIndex={0}>{open.content}</pre> : <p>Not a text document: use Download.</p>}
          <button onClick={() => setOpen(null)}>Close</button>
        </div>
      ) : null}
      <NewDocument folders={folders} onCreated={load} />
      <WorkspaceTables />
      <h2>Notifications ({unread} unread)</h2>
      {notes.length === 0 ? (
        <p>No notifications.</p>
      ) : (
        <>
          <ul>
            {notes.map((n) => (
              <li key={n.id}>
                <strong>{n.read ? n.title : `● ${n.title}`}</strong> — {n.message} <span className="hint">{new Date(n.created_at).toLocaleString()}</span>{' '}
                {n.action_url?.startsWith('/api/') ? (
                  <button className="link" onClick={() => void fetchFile(n.action_url!, n.action_label ?? 'export')}>
                    {n.action_label ?? 'Download'}
                  </button>
                ) : n.action_url?.startsWith('/') ? (
                  <a href={n.action_url}>{n.action_label ?? 'Open'}</a>
                ) : null}
              </li>
            ))}
          </ul>
          {unread ? <button onClick={() => void markAll()}>Mark all read</button> : null}
        </>
      )}
    </section>
  );
}

function Folders({ folders, onChange }: { folders: Folder[]; onChange(): void }) {
  const [name, setName] = useState('');
  const [parentId, setParentId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', '/api/agent-factory/workspace/folders', { body: { name, ...(parentId ? { parent_id: parentId } : {}) } });
      setName('');
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (f: Folder) => {
    setError(null);
    try {
      await api('DELETE', `/api/agent-factory/workspace/folders/${encodeURIComponent(f.id)}`);
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="folders-title">
      <h2 id="folders-title">Folders</h2>
      <ErrorBanner error={error} fields={['name', 'parent_id']} />
      {folders.length === 0 ? (
        <p>No folders yet.</p>
      ) : (
        <ul className="folders">
          {folders.map((f) => (
            <li key={f.id} data-folder={f.path}>
              <code>{f.path}</code>{' '}
              <button className="link" onClick={() => void remove(f)} aria-label={`Delete folder ${f.path}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={create} noValidate aria-label="New folder" className="filters">
        <TextField label="Folder name" value={name} onChange={(e) => setName(e.target.value)} error={fieldErr('name')} />
        <div className="field">
          <label htmlFor="folder-parent">Inside</label>
          <select id="folder-parent" value={parentId} onChange={(e) => setParentId(e.target.value)}>
            <option value="">/ (top)</option>
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <span aria-hidden="true">&nbsp;</span>
          <button type="submit">Create folder</button>
        </div>
      </form>
    </section>
  );
}

function NewDocument({ folders, onCreated }: { folders: Folder[]; onCreated(): void }) {
  const [folderId, setFolderId] = useState('');
  const [title, setTitle] = useState('');
  const [contentType, setContentType] = useState('text/markdown');
  const [content, setContent] = useState('');
  const [error, setError] = useState<unknown>(null);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', '/api/agent-factory/workspace/documents', { body: { title, content_type: contentType, content, ...(folderId ? { folder_id: folderId } : {}) } });
      setTitle('');
      setContent('');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-doc">
      <h2 id="new-doc">New document</h2>
      <ErrorBanner error={error} fields={['title', 'content_type', 'content']} />
      <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} error={fieldErr('title')} />
      <TextField label="Content type" value={contentType} onChange={(e) => setContentType(e.target.value)} error={fieldErr('content_type')} />
      <TextArea label="Content" rows={5} value={content} onChange={(e) => setContent(e.target.value)} error={fieldErr('content')} />
      {folders.length ? (
        <div className="field">
          <label htmlFor="new-doc-folder">Folder</label>
          <select id="new-doc-folder" value={folderId} onChange={(e) => setFolderId(e.target.value)}>
            <option value="">/ (top)</option>
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <button type="submit">Save document</button>
    </form>
  );
}
