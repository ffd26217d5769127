/** Your runs, newest first, filtered by status, outcome, agent and playbook; refreshed every few seconds while the page is open. */
import { useCallback, useEffect, useState } from 'react';
import { api, query } from '../api/client';
import type { RunSummary } from '../api/types';
import { ErrorBanner, StatusBadge } from '../components/ui';
import { Link } from '../router';

const STATUSES = ['queued', 'running', 'waiting', 'paused', 'completed', 'failed', 'cancelled'];
const OUTCOMES = ['complete', 'partial', 'error', 'awaiting_approval'];
const REFRESH_MS = 3_000;

interface AgentOption {
  id: string;
  handle: string;
  name: string;
}

export function RunsPage() {
  const [status, setStatus] = useState('');
  const [outcome, setOutcome] = useState('');
  const [agent, setAgent] = useState('');
  const [agents, setAgents] = useState<AgentOption[]>([]);
  const [playbook, setPlaybook] = useState('');
  const [playbooks, setPlaybooks] = useState<Array<{ id: string; name: string }>>([]);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    // The agent filter lists the profiles you may see; without them the other filters still work.
    api<{ profiles: AgentOption[] }>('GET', '/api/agent-factory/profiles').then(
      (r) => setAgents(r.profiles),
      () => setAgents([]),
    );
    api<{ playbooks: Array<{ id: string; name: string }> }>('GET', '/api/agent-factory/playbooks').then(
      (r) => setPlaybooks(r.playbooks),
      () => setPlaybooks([]),
    );
  }, []);

  const load = useCallback(async () => {
    try {
      const r = await api<{ runs: RunSummary[]; next_page_token: string | null }>('GET', `/api/v1/runs${query({ status, task_status: outcome, agent_profile_id: agent, playbook_id: playbook, page_size: 50 })}`);
      setRuns(r.runs);
      setNext(r.next_page_token);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [status, outcome, agent, playbook]);

  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(t);
  }, [load]);

  const more = async () => {
    if (!next) return;
    const r = await api<{ runs: RunSummary[]; next_page_token: string | null }>('GET', `/api/v1/runs${query({ status, task_status: outcome, agent_profile_id: agent, playbook_id: playbook, page_size: 50, page_token: next })}`);
    setRuns((old) => [...(old ?? []), ...r.runs]);
    setNext(r.next_page_token);
  };

  const agentName = new Map(agents.map((a) => [a.id, `@${a.handle}`]));
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <div className="filters" role="group" aria-label="Filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Outcome{' '}
          <select value={outcome} onChange={(e) => setOutcome(e.target.value)}>
            <option value="">any</option>
            {OUTCOMES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Agent{' '}
          <select value={agent} onChange={(e) => setAgent(e.target.value)}>
            <option value="">any</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} (@{a.handle})
              </option>
            ))}
          </select>
        </label>
        <label>
          Playbook{' '}
          <select value={playbook} onChange={(e) => setPlaybook(e.target.value)}>
            <option value="">any</option>
            {playbooks.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBanner error={error} />
      {runs === null ? (
        <p role="status">Loading runs…</p>
      ) : runs.length === 0 ? (
        <p>No runs{status || outcome || agent || playbook ? ' match these filters' : ' yet: start one from a playbook'}.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Outcome</th>
                <th scope="col">Agent</th>
                <th scope="col">Steps</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link href={`/runs/${r.id}`}>{r.id.slice(0, 8)}</Link>
                  </td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td>{r.task_status ?? '—'}</td>
                  <td>{r.agent_profile_id ? (agentName.get(r.agent_profile_id) ?? r.agent_profile_id.slice(0, 8)) : '—'}</td>
                  <td>
                    {r.steps_completed} done{r.steps_failed ? `, ${r.steps_failed} failed` : ''}
                    {r.steps_skipped ? `, ${r.steps_skipped} skipped` : ''}
                  </td>
                  <td>{new Date(r.created_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next ? <button onClick={() => void more()}>Load more</button> : null}
    </section>
  );
}
