/**
 * The workspace: documents (search, read a text document, write a new one —
 * the API's errors under each field) and notifications (mark all read).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, query } from '../api/client';
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

interface Notification {
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
  const [notes, setNotes] = useState<Notification[]>([]);
  const [unread, setUnread] = useState(0);
  const [open, setOpen] = useState<{ doc: Doc; content: string | null } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      const [d, n] = await Promise.all([
        api<{ documents: Doc[] }>('GET', `/api/agent-factory/workspace/documents${query({ query: search })}`),
        api<{ notifications: Notification[]; unread_count: number }>('GET', '/api/agent-factory/workspace/notifications?page_size=20'),
      ]);
      setDocs(d.documents);
      setNotes(n.notifications);
      setUnread(n.unread_count);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [search]);
  useEffect(() => {
    const t = setTimeout(() => void load(), 250);
    return () => clearTimeout(t);
  }, [load]);
  const read = async (doc: Doc) => {
    const r = await api<{ document: Doc; content?: string | null }>('GET', `/api/agent-factory/workspace/documents/${encodeURIComponent(doc.id)}`);
    setOpen({ doc, content: r.content ?? null });
  };
  const markAll = async () => {
    await api('POST', '/api/agent-factory/workspace/notifications/read', { body: { all: true } });
    void load();
  };
  return (
    <section aria-labelledby="ws-title">
      <h1 id="ws-title">Workspace</h1>
      <ErrorBanner error={error} />
      <h2>Documents</h2>
      <TextField label="Search documents" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
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
              <button onClick={() => void read(d)} aria-label={`Open ${d.title}`}>
                Open
              </button>
            </li>
          ))}
        </ul>
      )}
      {open ? (
        <div className="panel" role="region" aria-label={`Document ${open.doc.title}`}>
          <h2>{open.doc.title}</h2>
          {open.content !== null ? <pre tabIndex={0}>{open.content}</pre> : <p>Binary document: download it from the API.</p>}
          <button onClick={() => setOpen(null)}>Close</button>
        </div>
      ) : null}
      <NewDocument onCreated={load} />
      <h2>Notifications ({unread} unread)</h2>
      {notes.length === 0 ? (
        <p>No notifications.</p>
      ) : (
        <>
          <ul>
            {notes.map((n) => (
              <li key={n.id}>
                <strong>{n.read ? n.title : `● ${n.title}`}</strong> — {n.message} <span className="hint">{new Date(n.created_at).toLocaleString()}</span>
              </li>
            ))}
          </ul>
          {unread ? <button onClick={() => void markAll()}>Mark all read</button> : null}
        </>
      )}
    </section>
  );
}

function NewDocument({ onCreated }: { onCreated(): void }) {
  const [title, setTitle] = useState('');
  const [contentType, setContentType] = useState('text/markdown');
  const [content, setContent] = useState('');
  const [error, setError] = useState<unknown>(null);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', '/api/agent-factory/workspace/documents', { body: { title, content_type: contentType, content } });
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
      <button type="submit">Save document</button>
    </form>
  );
}
