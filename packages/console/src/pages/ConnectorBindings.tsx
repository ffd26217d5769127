/**
 * Which of your agents may use a connector: bind one (optionally only some
 * endpoints, with a rate limit), see each binding's status, unbind.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, TextField } from '../components/ui';

interface Binding {
  agent_profile_id: string;
  connector_id: string;
  allowed_endpoints: string[];
  rate_limit_per_minute: number;
  status: string;
  status_reason: string;
}

export function ConnectorBindings({ connector }: { connector: { id: string; name: string; definition: Record<string, any> } }) {
  const [bindings, setBindings] = useState<Binding[] | null>(null);
  const [agents, setAgents] = useState<Array<{ id: string; handle: string; name: string }>>([]);
  const [profileId, setProfileId] = useState('');
  const [endpoints, setEndpoints] = useState('');
  const [rate, setRate] = useState('0');
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      const [b, p] = await Promise.all([
        api<{ bindings: Binding[] }>('GET', '/api/agent-factory/connectors/bindings'),
        api<{ profiles: Array<{ id: string; handle: string; name: string; permissions: string[] }> }>('GET', '/api/agent-factory/profiles'),
      ]);
      setBindings(b.bindings.filter((x) => x.connector_id === connector.id));
      setAgents(p.profiles.filter((x) => x.permissions.includes('bind')));
    } catch (err) {
      setError(err);
    }
  }, [connector.id]);
  useEffect(() => void load(), [load]);
  const bind = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const allowed = endpoints
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      await api('PUT', `/api/agent-factory/connectors/${encodeURIComponent(connector.id)}/bindings/${encodeURIComponent(profileId)}`, {
        body: { allowed_endpoints: allowed, rate_limit_per_minute: Number(rate) || 0 },
      });
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const unbind = async (id: string) => {
    setError(null);
    try {
      await api('DELETE', `/api/agent-factory/connectors/${encodeURIComponent(connector.id)}/bindings/${encodeURIComponent(id)}`);
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const agentName = (id: string) => {
    const a = agents.find((x) => x.id === id);
    return a ? `@${a.handle}` : id;
  };
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const known = Object.keys(connector.definition.endpoints ?? {});
  return (
    <section className="panel" aria-label={`Bindings of ${connector.name}`}>
      <h2>Agents bound to {connector.name}</h2>
      <ErrorBanner error={error} fields={['allowed_endpoints', 'rate_limit_per_minute', 'profile_id', 'agent_profile_id']} />
      {bindings === null ? (
        <Loading what="bindings" />
      ) : bindings.length === 0 ? (
        <p>No agent is bound to it.</p>
      ) : (
        <ul>
          {bindings.map((b) => (
            <li key={b.agent_profile_id} data-binding={agentName(b.agent_profile_id)}>
              {agentName(b.agent_profile_id)} · {b.status}
              {b.status_reason ? ` (${b.status_reason})` : ''} · endpoints: {b.allowed_endpoints.join(', ') || 'all'}
              {b.rate_limit_per_minute ? ` · ${b.rate_limit_per_minute}/min` : ''}{' '}
              <button className="link" onClick={() => void unbind(b.agent_profile_id)}>
                Unbind {agentName(b.agent_profile_id)}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={bind} noValidate aria-label={`Bind ${connector.name} to an agent`}>
        <div className="field">
          <label htmlFor={`bind-${connector.id}`}>Agent</label>
          <select id={`bind-${connector.id}`} value={profileId} onChange={(e) => setProfileId(e.target.value)}>
            <option value="">choose an agent…</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                @{a.handle} ({a.name})
              </option>
            ))}
          </select>
          {fieldErr('agent_profile_id') ?? fieldErr('profile_id') ? <p className="field-error" role="alert">{fieldErr('agent_profile_id') ?? fieldErr('profile_id')}</p> : null}
        </div>
        <TextField
          label="Allowed endpoints (comma-separated; empty: all)"
          value={endpoints}
          onChange={(e) => setEndpoints(e.target.value)}
          hint={known.length ? `This connector has: ${known.join(', ')}` : undefined}
          error={fieldErr('allowed_endpoints')}
        />
        <TextField label="Rate limit per minute (0: none)" type="number" min={0} value={rate} onChange={(e) => setRate(e.target.value)} error={fieldErr('rate_limit_per_minute')} />
        <button type="submit" disabled={!profileId}>
          Bind
        </button>
      </form>
    </section>
  );
}
