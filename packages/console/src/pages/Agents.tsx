/**
 * Agents: your agent profiles (and those shared with you) with their
 * @handle, strategy and attached playbooks; a new one from a template (name
 * and handle, the API's errors under each); attach a playbook (the API names
 * each step whose connector the profile is not bound to).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, TextField } from '../components/ui';
import { Link } from '../router';

interface Profile {
  id: string;
  name: string;
  handle: string;
  description: string | null;
  strategy: string;
  playbooks: string[];
  access: string;
  permissions: string[];
}

interface Template {
  id: string;
  name: string;
  description: string;
  data_sources: string[];
  playbooks: string[];
}

export default function AgentsPage() {
  const [profiles, setProfiles] = useState<Profile[] | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [chosen, setChosen] = useState<Template | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      const [p, t] = await Promise.all([
        api<{ profiles: Profile[] }>('GET', '/api/agent-factory/profiles'),
        api<{ templates: Template[] }>('GET', '/api/agent-factory/profiles/templates'),
      ]);
      setProfiles(p.profiles);
      setTemplates(t.templates);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <ErrorBanner error={error} />
      <h2>My agents</h2>
      {profiles === null ? (
        <Loading what="agents" />
      ) : profiles.filter((p) => p.access === 'owner').length === 0 ? (
        <p>No agents yet: start from a template below.</p>
      ) : (
        <ul className="cards">
          {profiles
            .filter((p) => p.access === 'owner')
            .map((p) => (
              <li key={p.id}>
                <ProfileCard profile={p} onChange={load} />
              </li>
            ))}
        </ul>
      )}
      {profiles?.some((p) => p.access !== 'owner') ? (
        <>
          <h2>Shared with me</h2>
          <ul className="cards">
            {profiles
              .filter((p) => p.access !== 'owner')
              .map((p) => (
                <li key={p.id}>
                  <ProfileCard profile={p} onChange={load} />
                </li>
              ))}
          </ul>
        </>
      ) : null}
      <h2>Templates</h2>
      <ul className="cards">
        {templates.map((t) => (
          <li key={t.id} className="card">
            <h3>{t.name}</h3>
            <p>{t.description}</p>
            {t.data_sources.length ? <p className="hint">Meant for: {t.data_sources.join(', ')}</p> : null}
            <button onClick={() => setChosen(t)} aria-label={`Use template ${t.name}`}>
              Use template
            </button>
          </li>
        ))}
      </ul>
      {chosen ? (
        <FromTemplate
          template={chosen}
          onDone={() => {
            setChosen(null);
            void load();
          }}
          onCancel={() => setChosen(null)}
        />
      ) : null}
    </section>
  );
}

function ProfileCard({ profile, onChange }: { profile: Profile; onChange(): void }) {
  const [playbookId, setPlaybookId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [warnings, setWarnings] = useState<string[]>([]);
  const attach = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api<{ warnings: string[] }>('POST', `/api/agent-factory/profiles/${encodeURIComponent(profile.id)}/playbooks`, { body: { playbook_id: playbookId } });
      setWarnings(r.warnings ?? []);
      setPlaybookId('');
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  const fieldErr = error instanceof ApiError ? error.violations.filter((v) => v.field === 'playbook_id' || v.field.startsWith('steps')).map((v) => `${v.field}: ${v.reason}`).join('; ') : '';
  return (
    <article className="card" aria-label={`Agent @${profile.handle}`}>
      <h3>
        <Link href={`/agents/${profile.id}`}>{profile.name}</Link> <code>@{profile.handle}</code>
      </h3>
      <p className="hint">
        {profile.strategy} · {profile.access}
      </p>
      {profile.description ? <p>{profile.description}</p> : null}
      <p>Playbooks: {profile.playbooks.length ? profile.playbooks.join(', ') : 'none'}</p>
      {profile.permissions.includes('edit') ? (
        <form onSubmit={attach} noValidate aria-label={`Attach a playbook to @${profile.handle}`}>
          <TextField label="Attach playbook (id)" value={playbookId} onChange={(e) => setPlaybookId(e.target.value)} error={fieldErr || undefined} />
          <ErrorBanner error={fieldErr ? null : error} />
          {warnings.length ? <p className="hint">{warnings.join('; ')}</p> : null}
          <button type="submit">Attach</button>
        </form>
      ) : null}
    </article>
  );
}

function FromTemplate({ template, onDone, onCancel }: { template: Template; onDone(): void; onCancel(): void }) {
  const [name, setName] = useState(template.name);
  const [handle, setHandle] = useState(template.id);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/api/agent-factory/profiles/from-template/${encodeURIComponent(template.id)}`, { body: { name, handle } });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label={`New agent from ${template.name}`}>
      <h2>New agent from “{template.name}”</h2>
      <ErrorBanner error={error} fields={['name', 'handle']} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={fieldErr('name')} />
      <TextField label="Handle (for @mentions)" value={handle} onChange={(e) => setHandle(e.target.value)} error={fieldErr('handle')} />
      <div className="actions">
        <button type="submit" disabled={busy}>
          Create agent
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
