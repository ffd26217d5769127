/**
 * Entity review: ambiguous matches side by side with their match details
 * (merge, keep apart, not a match), and the resolution log with undo for
 * reversible merges.
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { ErrorBanner, Loading } from '../components/ui';

interface Review {
  id: string;
  source_entity_id: string;
  source_entity_name: string;
  source_entity_type: string;
  candidate_entity_id: string;
  candidate_entity_name: string;
  confidence: number;
  match_details: Record<string, unknown>;
  context: Record<string, unknown>;
  status: string;
}

interface LogEntry {
  id: string;
  action: string;
  source_entity_name: string;
  target_entity_name: string | null;
  confidence: number;
  match_method: string;
  is_reversible: boolean;
  reversed_at: string | null;
  created_at: string;
}

export default function EntityReviewPage() {
  const [reviews, setReviews] = useState<Review[] | null>(null);
  const [log, setLog] = useState<LogEntry[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    try {
      const [r, l] = await Promise.all([
        api<{ reviews: Review[] }>('GET', '/api/agent-factory/entity-reviews?status=pending'),
        api<{ entries: LogEntry[] }>('GET', '/api/agent-factory/entity-resolution/log?limit=50'),
      ]);
      setReviews(r.reviews);
      setLog(l.entries);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const act = async (path: string) => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', path, { body: {} });
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="er-title">
      <h1 id="er-title">Entity review</h1>
      <ErrorBanner error={error} />
      <h2>Waiting for a decision</h2>
      {reviews === null ? (
        <Loading what="reviews" />
      ) : reviews.length === 0 ? (
        <p>No matches to review.</p>
      ) : (
        <ul className="cards">
          {reviews.map((r) => (
            <li key={r.id}>
              <article className="card" aria-label={`Review ${r.source_entity_name} and ${r.candidate_entity_name}`}>
                <div className="side-by-side">
                  <div>
                    <h3>{r.source_entity_name}</h3>
                    <p className="hint">
                      new · {r.source_entity_type} · <code>{r.source_entity_id.slice(0, 8)}</code>
                    </p>
                  </div>
                  <div>
                    <h3>{r.candidate_entity_name}</h3>
                    <p className="hint">
                      known · <code>{r.candidate_entity_id.slice(0, 8)}</code>
                    </p>
                  </div>
                </div>
                <p>Confidence {(r.confidence * 100).toFixed(1)} %</p>
                <details>
                  <summary>Match details</summary>
                  <pre tabIndex={0}>{JSON.stringify(r.match_details, null, 2)}</pre>
                </details>
                <div className="actions">
                  <button disabled={busy} onClick={() => void act(`/api/agent-factory/entity-reviews/${encodeURIComponent(r.id)}/approve`)}>
                    Merge
                  </button>
                  <button disabled={busy} onClick={() => void act(`/api/agent-factory/entity-reviews/${encodeURIComponent(r.id)}/reject`)}>
                    Keep apart
                  </button>
                  <button disabled={busy} className="danger" onClick={() => void act(`/api/agent-factory/entity-reviews/${encodeURIComponent(r.id)}/not-a-match`)}>
                    Not a match
                  </button>
                </div>
              </article>
            </li>
          ))}
        </ul>
      )}
      <h2>Resolution log</h2>
      {log.length === 0 ? (
        <p>No decisions yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Resolution decisions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Entity</th>
                <th scope="col">Into</th>
                <th scope="col">Method</th>
                <th scope="col">Undo</th>
              </tr>
            </thead>
            <tbody>
              {log.map((e) => (
                <tr key={e.id} data-log-action={e.action}>
                  <td>{new Date(e.created_at).toLocaleString()}</td>
                  <td>{e.action}</td>
                  <td>{e.source_entity_name}</td>
                  <td>{e.target_entity_name ?? '—'}</td>
                  <td>{e.match_method}</td>
                  <td>
                    {e.reversed_at ? (
                      'reversed'
                    ) : e.is_reversible ? (
                      <button disabled={busy} onClick={() => void act(`/api/agent-factory/entity-resolution/reverse/${encodeURIComponent(e.id)}`)} aria-label={`Undo ${e.action} of ${e.source_entity_name}`}>
                        Undo
                      </button>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
