/** Sign in, or register and then sign in. Errors from the API sit under the field they name. */
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, setToken } from '../api/client';
import { ErrorBanner, TextField } from '../components/ui';

/** An invitation link carries its token in the fragment (`/#invite=…`), which never reaches the server or its logs. */
function inviteFromLink(): string {
  return new URLSearchParams(globalThis.location?.hash.slice(1) ?? '').get('invite') ?? '';
}

export function SignIn() {
  const [linkToken] = useState(inviteFromLink);
  const [mode, setMode] = useState<'sign-in' | 'register'>(linkToken ? 'register' : 'sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [inviteToken, setInviteToken] = useState(linkToken);
  const [signup, setSignup] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<{ signup: string }>('GET', '/api/auth/signup').then((r) => setSignup(r.signup), () => setSignup(null));
  }, []);

  const fieldError = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (mode === 'register') {
        await api('POST', '/api/auth/register', { body: { email, password, ...(name ? { name } : {}), ...(inviteToken ? { invite_token: inviteToken } : {}) } });
      }
      const login = await api<{ access_token: string }>('POST', '/api/auth/login', { body: { email, password } });
      setToken(login.access_token);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = mode === 'sign-in' ? 'Sign in' : 'Create an account';
  return (
    <main id="main" className="auth">
      <h1>Agent Factory</h1>
      <form onSubmit={submit} aria-labelledby="auth-title" noValidate>
        <h2 id="auth-title">{title}</h2>
        <ErrorBanner error={error} fields={['email', 'password', 'name', 'invite_token']} />
        <TextField label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={fieldError('email')} />
        <TextField
          label="Password"
          type="password"
          autoComplete={mode === 'register' ? 'new-password' : 'current-password'}
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError('password')}
        />
        {mode === 'register' ? (
          <>
            <TextField label="Name (optional)" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={fieldError('name')} />
            {signup === 'invite' || linkToken ? (
              <TextField label="Invitation token" value={inviteToken} onChange={(e) => setInviteToken(e.target.value)} error={fieldError('invite_token')} />
            ) : null}
          </>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : title}
        </button>
        {signup !== 'closed' ? (
          <p>
            {mode === 'sign-in' ? 'No account yet? ' : 'Have an account? '}
            <button
              type="button"
              className="link"
              onClick={() => {
                setMode(mode === 'sign-in' ? 'register' : 'sign-in');
                setError(null);
              }}
            >
              {mode === 'sign-in' ? 'Register' : 'Sign in'}
            </button>
          </p>
        ) : null}
      </form>
    </main>
  );
}
