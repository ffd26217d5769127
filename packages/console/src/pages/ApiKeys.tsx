/**
 * API keys for other services: create one (the key is shown this once and
 * stored only hashed), optionally restricted to a team and with an expiry;
 * the list with prefix, team, expiry, last use; revoke. Errors under the
 * field they name.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, TextField } from '../components/ui';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  team_id: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

const day = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : '—');

export default function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [teams, setTeams] = useState<Array<{ id: string; name: string }>>([]);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [teamId, setTeamId] = useState('');
  const [days, setDays] = useState('');
  const [createError, setCreateError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const load = useCallback(async () => {
    try {
      setKeys((await api<{ api_keys: ApiKey[] }>('GET', '/api/v1/api-keys')).api_keys);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => {
    void load();
    api<{ teams: Array<{ id: string; name: string }> }>('GET', '/api/v1/teams').then((r) => setTeams(r.teams), () => setTeams([]));
  }, [load]);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setCreateError(null);
    setCreated(null);
    const body: Record<string, unknown> = { name };
    if (teamId) body.team_id = teamId;
    // Sent as typed: the API names `expires_in_days` when it is not a whole number in range.
    if (days.trim()) body.expires_in_days = /^-?\d+(\.\d+)?$/.test(days.trim()) ? Number(days.trim()) : days.trim();
    try {
      const r = await api<{ key: string; api_key: ApiKey }>('POST', '/api/v1/api-keys', { body });
      setCreated({ name: r.api_key.name, key: r.key });
      setName('');
      setDays('');
      void load();
    } catch (err) {
      setCreateError(err);
    }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api('DELETE', `/api/v1/api-keys/${encodeURIComponent(id)}`);
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const fieldErr = (f: string) => (createError instanceof ApiError ? createError.forField(f) : undefined);
  const teamName = (id: string | null) => (id ? (teams.find((t) => t.id === id)?.name ?? id.slice(0, 8)) : 'all your teams');
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p className="hint">For another service calling this API: send the key as a bearer token, or exchange it for a service token.</p>
      <ErrorBanner error={error} />
      {created ? (
        <div className="banner" role="status" data-new-key>
          Key “{created.name}” created. Copy it now: it is shown this once and stored only hashed.
          <code className="secret">{created.key}</code>
        </div>
      ) : null}
      {keys === null ? (
        <Loading what="API keys" />
      ) : keys.length === 0 ? (
        <p>No API keys yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Team</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-api-key={k.name}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{teamName(k.team_id)}</td>
                  <td>{day(k.created_at)}</td>
                  <td>{k.expires_at ? day(k.expires_at) : 'never'}</td>
                  <td>{day(k.last_used_at)}</td>
                  <td>
                    {k.revoked_at ? (
                      `revoked ${day(k.revoked_at)}`
                    ) : (
                      <button className="link" onClick={() => void revoke(k.id)}>
                        Revoke {k.name}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className="panel" onSubmit={create} noValidate aria-labelledby="new-key">
        <h2 id="new-key">New API key</h2>
        <ErrorBanner error={createError} fields={['name', 'team_id', 'expires_in_days']} />
        <TextField label="Key name" value={name} onChange={(e) => setName(e.target.value)} error={fieldErr('name')} />
        <div className="field">
          <label htmlFor="key-team">Team</label>
          <select id="key-team" value={teamId} onChange={(e) => setTeamId(e.target.value)} aria-invalid={fieldErr('team_id') ? true : undefined}>
            <option value="">All your teams</option>
            {teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          {fieldErr('team_id') ? <p className="field-error" role="alert">{fieldErr('team_id')}</p> : null}
        </div>
        <TextField label="Expires in days (empty: never)" inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} error={fieldErr('expires_in_days')} />
        <button type="submit">Create key</button>
      </form>
    </section>
  );
}
