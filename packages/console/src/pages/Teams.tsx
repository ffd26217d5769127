/**
 * Teams: yours with your role and member count; a new team; a team's
 * members, and (for owners) adding a registered user by email — the API's
 * errors under the field they name. Owners invite an email address without
 * an account (the invitation token is shown once, to pass on: its holder
 * registers with it and joins the team), see the pending invitations and
 * revoke them.
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
      {team.role === 'owner' ? <Invites team={team} /> : null}
    </article>
  );
}

interface Invite {
  id: string;
  email: string;
  role: string;
  expires_at: string;
}

function Invites({ team }: { team: Team }) {
  const base = `/api/v1/teams/${encodeURIComponent(team.id)}/invites`;
  const [invites, setInvites] = useState<Invite[] | null>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [issued, setIssued] = useState<{ email: string; token: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      setInvites((await api<{ invites: Invite[] }>('GET', base)).invites);
    } catch (err) {
      setError(err);
    }
  }, [base]);
  useEffect(() => void load(), [load]);
  const invite = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setIssued(null);
    try {
      const r = await api<{ invite: Invite; invite_token: string }>('POST', base, { body: { email, role } });
      setIssued({ email: r.invite.email, token: r.invite_token });
      setEmail('');
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api('DELETE', `${base}/${encodeURIComponent(id)}`);
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  return (
    <section aria-label={`Invitations to ${team.name}`}>
      <h3>Invitations</h3>
      {issued ? (
        <div className="banner" role="status" data-invite-token>
          Invitation for {issued.email}. Its token is shown this once; whoever registers with it for that address joins the team:
          <code className="secret">{issued.token}</code>
          Or send this link, which opens the registration with the token filled in:
          <code className="secret" data-invite-link>{`${location.origin}/#invite=${encodeURIComponent(issued.token)}`}</code>
        </div>
      ) : null}
      {invites === null ? (
        <Loading what="invitations" />
      ) : invites.length === 0 ? (
        <p className="hint">No pending invitations.</p>
      ) : (
        <ul>
          {invites.map((i) => (
            <li key={i.id} data-invite={i.email}>
              {i.email} · {i.role} · until {new Date(i.expires_at).toLocaleDateString()}{' '}
              <button className="link" onClick={() => void revoke(i.id)}>
                Revoke invitation for {i.email}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={invite} noValidate aria-label={`Invite to ${team.name}`}>
        <ErrorBanner error={error} fields={['email', 'role']} />
        <TextField label="Invite (email)" type="email" value={email} onChange={(e) => setEmail(e.target.value)} error={fieldErr('email')} />
        <div className="field">
          <label htmlFor={`${team.id}-invite-role`}>Role</label>
          <select id={`${team.id}-invite-role`} value={role} onChange={(e) => setRole(e.target.value)}>
            <option>member</option>
            <option>owner</option>
          </select>
          {fieldErr('role') ? <p className="field-error" role="alert">{fieldErr('role')}</p> : null}
        </div>
        <button type="submit">Invite</button>
      </form>
    </section>
  );
}
