/**
 * Teams: yours with your role and member count; a new team; a team's
 * members, and (for owners) adding a registered user by email — the API's
 * errors under the field they name.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, TextField } from '../components/ui';

interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: string;
}

interface Team {
  id: string;
  name: string;
  role: string;
  member_count: number;
  members?: Member[];
}

export default function TeamsPage() {
  const [teams, setTeams] = useState<Team[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      setTeams((await api<{ teams: Team[] }>('GET', '/api/v1/teams')).teams);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setCreateError(null);
    try {
      await api('POST', '/api/v1/teams', { body: { name } });
      setName('');
      void load();
    } catch (err) {
      setCreateError(err);
    }
  };
  return (
    <section aria-labelledby="teams-title">
      <h1 id="teams-title">Teams</h1>
      <ErrorBanner error={error} />
      {teams === null ? (
        <Loading what="teams" />
      ) : teams.length === 0 ? (
        <p>You are in no team yet.</p>
      ) : (
        <ul className="cards">
          {teams.map((t) => (
            <li key={t.id}>
              <TeamCard team={t} />
            </li>
          ))}
        </ul>
      )}
      <form className="panel" onSubmit={create} noValidate aria-labelledby="new-team">
        <h2 id="new-team">New team</h2>
        <ErrorBanner error={createError} fields={['name']} />
        <TextField label="Team name" value={name} onChange={(e) => setName(e.target.value)} error={createError instanceof ApiError ? createError.forField('name') : undefined} />
        <button type="submit">Create team</button>
      </form>
    </section>
  );
}

function TeamCard({ team }: { team: Team }) {
  const [detail, setDetail] = useState<Team | null>(null);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<unknown>(null);
  const show = async () => setDetail((await api<{ team: Team }>('GET', `/api/v1/teams/${encodeURIComponent(team.id)}`)).team);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      setDetail((await api<{ team: Team }>('POST', `/api/v1/teams/${encodeURIComponent(team.id)}/members`, { body: { email, role: 'member' } })).team);
      setEmail('');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <article className="card" aria-label={`Team ${team.name}`}>
      <h2>{team.name}</h2>
      <p className="hint">
        you are {team.role} · {detail?.members?.length ?? team.member_count} member{(detail?.members?.length ?? team.member_count) === 1 ? '' : 's'}
      </p>
      {detail?.members ? (
        <ul>
          {detail.members.map((m) => (
            <li key={m.user_id}>
              {m.name ? `${m.name} ` : ''}
              {m.email} · {m.role}
            </li>
          ))}
        </ul>
      ) : (
        <button onClick={() => void show()}>Members</button>
      )}
      {team.role === 'owner' ? (
        <form onSubmit={add} noValidate aria-label={`Add a member to ${team.name}`}>
          <ErrorBanner error={error} fields={['email']} />
          <TextField label="Add member (email)" type="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error instanceof ApiError ? error.forField('email') : undefined} />
          <button type="submit">Add</button>
        </form>
      ) : null}
    </article>
  );
}
