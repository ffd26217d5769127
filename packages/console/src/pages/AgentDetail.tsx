/**
 * One agent: edit its profile (name, description, strategy, approval policy,
 * output config as JSON; errors under the field they name), its journal
 * (filtered by outcome, with the activity summary), its runs, and for the
 * owner the teams it is shared with (share, change the access level and the
 * journal visibility, stop sharing).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, query } from '../api/client';
import { ErrorBanner, Loading, StatusBadge, TextArea, TextField } from '../components/ui';
import { Link } from '../router';

interface Profile {
  id: string;
  name: string;
  handle: string;
  description: string | null;
  strategy: string;
  default_approval_policy: string;
  output_config: Record<string, unknown>;
  playbooks: string[];
  access: string;
  permissions: string[];
}

interface JournalEntry {
  id: string;
  run_id: string | null;
  summary: string;
  summary_source: string;
  task_status: string;
  strategy: string | null;
  playbook_id: string | null;
  run_context: string;
  entities_mentioned: string[];
  error_summary: string | null;
  created_at: string;
}

interface Share {
  team_id: string;
  access_level: string;
  journal_visibility: string;
  team_file_access: boolean;
  team_post_access: boolean;
  is_active: boolean;
}

const STRATEGIES = ['auto', 'playbook', 'pipeline', 'research', 'direct'];
const TASK_STATUSES = ['complete', 'partial', 'error', 'awaiting_approval'];

export default function AgentDetailPage({ profileId }: { profileId: string }) {
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      setProfile((await api<{ profile: Profile }>('GET', `/api/agent-factory/profiles/${encodeURIComponent(profileId)}`)).profile);
    } catch (err) {
      setError(err);
    }
  }, [profileId]);
  useEffect(() => void load(), [load]);
  if (!profile) return error ? <ErrorBanner error={error} /> : <Loading what="agent" />;
  return (
    <section aria-labelledby="agent-title">
      <p>
        <Link href="/agents">← Agents</Link>
      </p>
      <h1 id="agent-title">
        {profile.name} <code>@{profile.handle}</code>
      </h1>
      <p className="hint">
        {profile.access === 'owner' ? 'yours' : 'shared with you'} · playbooks: {profile.playbooks.join(', ') || 'none'} ·{' '}
        <Link href="/chat">chat with it</Link>
      </p>
      <div className="run-layout">
        <div>
          <Journal profileId={profile.id} />
          <AgentRuns profileId={profile.id} />
        </div>
        <div>
          {profile.permissions.includes('edit') ? <ProfileEditor profile={profile} onSaved={setProfile} /> : null}
          {profile.permissions.includes('share') ? <Sharing profileId={profile.id} /> : null}
        </div>
      </div>
    </section>
  );
}

function ProfileEditor({ profile, onSaved }: { profile: Profile; onSaved(p: Profile): void }) {
  const [name, setName] = useState(profile.name);
  const [description, setDescription] = useState(profile.description ?? '');
  const [strategy, setStrategy] = useState(profile.strategy);
  const [approval, setApproval] = useState(profile.default_approval_policy);
  const [output, setOutput] = useState(JSON.stringify(profile.output_config ?? {}, null, 2));
  const [error, setError] = useState<unknown>(null);
  const [outputError, setOutputError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setOutputError(undefined);
    setSaved(false);
    let outputConfig: unknown;
    try {
      outputConfig = JSON.parse(output || '{}');
    } catch (err) {
      setOutputError(`is not valid JSON: ${(err as Error).message}`);
      return;
    }
    setBusy(true);
    try {
      const r = await api<{ profile: Profile }>('PUT', `/api/agent-factory/profiles/${encodeURIComponent(profile.id)}`, {
        body: { name, description, strategy, default_approval_policy: approval, output_config: outputConfig },
      });
      onSaved(r.profile);
      setSaved(true);
    } catch (err) {
      setError(err);
      if (err instanceof ApiError) {
        const v = err.violations.find((x) => x.field === 'output_config' || x.field.startsWith('output_config.'));
        if (v) setOutputError(`${v.field}: ${v.reason}`);
      }
    } finally {
      setBusy(false);
    }
  };
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const outputFields = error instanceof ApiError ? error.violations.filter((v) => v.field.startsWith('output_config')).map((v) => v.field) : [];
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label="Edit the profile">
      <h2>Profile</h2>
      <ErrorBanner error={error} fields={['name', 'description', 'strategy', 'default_approval_policy', ...outputFields]} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={fieldErr('name')} />
      <TextArea label="Description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} error={fieldErr('description')} />
      <div className="field">
        <label htmlFor="agent-strategy">Strategy</label>
        <select id="agent-strategy" value={strategy} onChange={(e) => setStrategy(e.target.value)}>
          {STRATEGIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        {fieldErr('strategy') ? <p className="field-error" role="alert">{fieldErr('strategy')}</p> : null}
      </div>
      <div className="field">
        <label htmlFor="agent-approval">Approval of side effects</label>
        <select id="agent-approval" value={approval} onChange={(e) => setApproval(e.target.value)}>
          <option value="require">require</option>
          <option value="auto_approve">auto_approve</option>
        </select>
      </div>
      <TextArea
        label="Output config (JSON: auto_enrich_graph, auto_save, destinations [{type, format?, config?}])"
        className="code"
        rows={8}
        value={output}
        onChange={(e) => setOutput(e.target.value)}
        error={outputError}
      />
      <button type="submit" disabled={busy}>
        Save profile
      </button>
      {saved ? <p role="status">Saved.</p> : null}
    </form>
  );
}

function Journal({ profileId }: { profileId: string }) {
  const [status, setStatus] = useState('');
  const [entries, setEntries] = useState<JournalEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [summary, setSummary] = useState<{ by_task_status: Record<string, number>; top_entities: Array<{ name: string; count: number }> } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(
    async (pageToken?: string) => {
      try {
        const r = await api<{ entries: JournalEntry[]; next_page_token: string | null }>(
          'GET',
          `/api/agent-factory/profiles/${encodeURIComponent(profileId)}/journal${query({ task_status: status, page_size: 20, page_token: pageToken })}`,
        );
        setEntries((old) => (pageToken ? [...(old ?? []), ...r.entries] : r.entries));
        setNext(r.next_page_token);
        setError(null);
      } catch (err) {
        setError(err);
      }
    },
    [profileId, status],
  );
  useEffect(() => void load(), [load]);
  useEffect(() => {
    api<{ summary: typeof summary }>('GET', `/api/agent-factory/profiles/${encodeURIComponent(profileId)}/journal/summary`).then(
      (r) => setSummary(r.summary),
      () => setSummary(null),
    );
  }, [profileId]);
  return (
    <section aria-labelledby="journal-title">
      <h2 id="journal-title">Journal</h2>
      {summary ? (
        <p className="meta" data-journal-summary>
          {Object.entries(summary.by_task_status)
            .map(([k, v]) => `${k}: ${v}`)
            .join(' · ') || 'no entries yet'}
          {summary.top_entities.length ? ` · most mentioned: ${summary.top_entities.map((e) => e.name).join(', ')}` : ''}
        </p>
      ) : null}
      <div className="filters">
        <div className="field">
          <label htmlFor="journal-status">Outcome</label>
          <select id="journal-status" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {TASK_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
      </div>
      <ErrorBanner error={error} />
      {entries === null ? (
        <Loading what="journal" />
      ) : entries.length === 0 ? (
        <p>No journal entries{status ? ' with this outcome' : ''}.</p>
      ) : (
        <ol className="journal">
          {entries.map((e) => (
            <li key={e.id} data-journal-entry={e.id}>
              <StatusBadge status={e.task_status} /> {e.summary}{' '}
              <span className="hint">
                {e.strategy ?? ''}
                {e.playbook_id ? ` · ${e.playbook_id}` : ''} · {e.run_context} · {new Date(e.created_at).toLocaleString()}
                {e.run_id ? (
                  <>
                    {' · '}
                    <Link href={`/runs/${e.run_id}`}>run {e.run_id.slice(0, 8)}</Link>
                  </>
                ) : null}
              </span>
              {e.error_summary ? <p className="field-error">{e.error_summary}</p> : null}
            </li>
          ))}
        </ol>
      )}
      {next ? <button onClick={() => void load(next)}>More entries</button> : null}
    </section>
  );
}

function AgentRuns({ profileId }: { profileId: string }) {
  const [runs, setRuns] = useState<Array<{ id: string; status: string; task_status: string | null; created_at: string }> | null>(null);
  useEffect(() => {
    api<{ runs: NonNullable<typeof runs> }>('GET', `/api/agent-factory/profiles/${encodeURIComponent(profileId)}/runs?page_size=10`).then(
      (r) => setRuns(r.runs),
      () => setRuns([]),
    );
  }, [profileId]);
  return (
    <section aria-labelledby="agent-runs-title">
      <h2 id="agent-runs-title">Recent runs</h2>
      {runs === null ? (
        <Loading what="runs" />
      ) : runs.length === 0 ? (
        <p>No runs yet.</p>
      ) : (
        <ul>
          {runs.map((r) => (
            <li key={r.id}>
              <Link href={`/runs/${r.id}`}>{r.id.slice(0, 8)}</Link> <StatusBadge status={r.status} /> {r.task_status ?? ''}{' '}
              <span className="hint">{new Date(r.created_at).toLocaleString()}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Sharing({ profileId }: { profileId: string }) {
  const [shares, setShares] = useState<Share[] | null>(null);
  const [teams, setTeams] = useState<Array<{ id: string; name: string }>>([]);
  const [teamId, setTeamId] = useState('');
  const [access, setAccess] = useState('use');
  const [visibility, setVisibility] = useState('own_and_scheduled');
  const [error, setError] = useState<unknown>(null);
  const base = `/api/agent-factory/profiles/${encodeURIComponent(profileId)}`;
  const load = useCallback(async () => {
    try {
      const [s, t] = await Promise.all([api<{ shares: Share[] }>('GET', `${base}/shares`), api<{ teams: Array<{ id: string; name: string }> }>('GET', '/api/v1/teams')]);
      setShares(s.shares);
      setTeams(t.teams);
    } catch (err) {
      setError(err);
    }
  }, [base]);
  useEffect(() => void load(), [load]);
  const share = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', `${base}/share`, { body: { team_id: teamId, access_level: access, journal_visibility: visibility } });
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const change = async (team: string, body: Record<string, unknown>) => {
    setError(null);
    try {
      await api('PUT', `${base}/share/${encodeURIComponent(team)}`, { body });
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const stop = async (team: string) => {
    setError(null);
    try {
      await api('DELETE', `${base}/share/${encodeURIComponent(team)}`);
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const teamName = (id: string) => teams.find((t) => t.id === id)?.name ?? id;
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  return (
    <section className="panel" aria-labelledby="sharing-title">
      <h2 id="sharing-title">Team sharing</h2>
      <ErrorBanner error={error} fields={['team_id']} />
      {shares === null ? (
        <Loading what="shares" />
      ) : shares.length === 0 ? (
        <p>Not shared with any team.</p>
      ) : (
        <ul className="shares">
          {shares.map((s) => (
            <li key={s.team_id} aria-label={`Shared with ${teamName(s.team_id)}`}>
              <strong>{teamName(s.team_id)}</strong>: {s.access_level} · journal {s.journal_visibility}{' '}
              <button className="link" onClick={() => void change(s.team_id, { access_level: s.access_level === 'use' ? 'edit' : 'use' })}>
                Make {s.access_level === 'use' ? 'edit' : 'use'}
              </button>{' '}
              <button className="link" onClick={() => void stop(s.team_id)}>
                Stop sharing
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={share} noValidate aria-label="Share with a team">
        <div className="field">
          <label htmlFor="share-team">Team</label>
          <select id="share-team" value={teamId} onChange={(e) => setTeamId(e.target.value)} aria-invalid={fieldErr('team_id') ? true : undefined}>
            <option value="">choose a team…</option>
            {teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          {fieldErr('team_id') ? <p className="field-error" role="alert">{fieldErr('team_id')}</p> : null}
        </div>
        <div className="field">
          <label htmlFor="share-access">Access</label>
          <select id="share-access" value={access} onChange={(e) => setAccess(e.target.value)}>
            <option value="use">use (mention and run)</option>
            <option value="edit">edit (also change settings)</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="share-visibility">Journal visibility</label>
          <select id="share-visibility" value={visibility} onChange={(e) => setVisibility(e.target.value)}>
            <option value="own_only">own_only</option>
            <option value="own_and_scheduled">own_and_scheduled</option>
            <option value="full">full</option>
          </select>
        </div>
        <button type="submit">Share</button>
      </form>
    </section>
  );
}
