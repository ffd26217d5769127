/**
 * Accounts security through the real gateway (one stack): login throttling
 * per account and per client address with backoff (429 too_many_attempts +
 * Retry-After), unknown emails throttled like known ones, token revocation
 * (logout-all, deleted accounts), account deletion, and the password rules.
 *
 * The gateway trusts X-Forwarded-For from loopback here (TRUST_PROXY), so
 * each case plays a client address of its own; the throttle is tight (3 free
 * failures per account, 6 per address, 1 s base backoff, 429s held back
 * 200 ms at most) to keep it quick.
 */
import { randomUUID } from 'node:crypto';
import { http, startStack, type Stack } from '@af/testing';
import bcrypt from 'bcryptjs';

let stack: Stack;
const url = (path: string) => `${stack.gatewayUrl}${path}`;
const PASSWORD = 'correct horse battery staple';

const from = (address: string) => ({ 'x-forwarded-for': address });
const login = (email: string, password: string, address: string) => http('POST', url('/api/auth/login'), { body: { email, password }, headers: from(address) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function register(email: string, address = '198.51.100.1'): Promise<{ id: string; token: string }> {
  const reg = await http('POST', url('/api/auth/register'), { body: { email, password: PASSWORD }, headers: from(address) });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const res = await login(email, PASSWORD, address);
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id as string, token: res.body.access_token as string };
}

const PLAYBOOK = [
  'id: tiny',
  'name: One pure step',
  'execution_mode: deterministic',
  'inputs:',
  '  - { name: rows, type: list, required: true }',
  'steps:',
  '  - name: limited',
  '    step_type: tool',
  '    action: transform_data',
  '    inputs: { data: "{rows}" }',
  '    operations: [{ type: limit, value: 1 }]',
  '',
].join('\n');

function expectTooMany(res: { status: number; body: any; headers: Headers }, field: string) {
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe('RESOURCE_EXHAUSTED');
  expect(res.body.error.violations).toEqual([expect.objectContaining({ field, code: 'too_many_attempts' })]);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  expect(res.body.error.message).toContain(`retry in ${retryAfter} s`);
  return retryAfter;
}

beforeAll(async () => {
  stack = await startStack({
    env: {
      gateway: {
        TRUST_PROXY: 'loopback',
        LOGIN_ACCOUNT_FREE_FAILURES: '3',
        LOGIN_ADDRESS_FREE_FAILURES: '6',
        LOGIN_BACKOFF_BASE_MS: '1000',
        LOGIN_BACKOFF_MAX_SECONDS: '60',
        // Refusals are held back briefly (the default is up to 1 s), so the 1 s locks here outlast them comfortably.
        LOGIN_REJECT_DELAY_MS: '200',
      },
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('login throttling', () => {
  it('locks an account after repeated wrong passwords (429, Retry-After), backs off exponentially, and lets the right password in after the wait', async () => {
    await register('olga@example.com');
    // Each attempt from another address: only the account's counter is in play.
    for (let i = 0; i < 3; i++) expect((await login('olga@example.com', 'wrong password!', `203.0.113.${10 + i}`)).status).toBe(401);
    const locked = await login('olga@example.com', PASSWORD, '203.0.113.20');
    const first = expectTooMany(locked, 'email');
    expect(locked.body.error.message).toContain('for this account');
    expect(first).toBe(1);
    await sleep(first * 1000 + 100);
    // One more failure doubles the lock.
    expect((await login('olga@example.com', 'still wrong!', '203.0.113.21')).status).toBe(401);
    expect(expectTooMany(await login('olga@example.com', PASSWORD, '203.0.113.22'), 'email')).toBe(2);
    await sleep(2100);
    const ok = await login('olga@example.com', PASSWORD, '203.0.113.23');
    expect(ok.status).toBe(200);
    // Success cleared the account's counter: a typo is a plain 401 again.
    expect((await login('olga@example.com', 'typo typo', '203.0.113.24')).status).toBe(401);
    expect((await login('olga@example.com', PASSWORD, '203.0.113.24')).status).toBe(200);
  });

  it('locks a client address that fails on many accounts, known or not, without touching other addresses', async () => {
    await register('pavel@example.com', '192.0.2.99');
    const address = '192.0.2.50';
    const emails = ['nobody-1@example.com', 'pavel@example.com', 'nobody-2@example.com', 'nobody-3@example.com', 'nobody-4@example.com', 'nobody-5@example.com'];
    for (const email of emails) expect((await login(email, 'guess guess', address)).status).toBe(401);
    const blocked = await login('someone-new@example.com', 'guess guess', address);
    expectTooMany(blocked, '(client address)');
    expect(blocked.body.error.message).toContain('from this client address');
    // The right password from that address waits too; from another address it works.
    expectTooMany(await login('pavel@example.com', PASSWORD, address), '(client address)');
    expect((await login('pavel@example.com', PASSWORD, '192.0.2.51')).status).toBe(200);
  });

  it('throttles an unknown email exactly like a known one (no way to tell them apart)', async () => {
    await register('quinn@example.com');
    const run = async (email: string, addressBase: number) => {
      const statuses: number[] = [];
      const messages: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await login(email, 'not it at all', `198.18.0.${addressBase + i}`);
        statuses.push(res.status);
        messages.push(res.body.error.message);
      }
      return { statuses, messages };
    };
    const known = await run('quinn@example.com', 10);
    const unknown = await run('no-such-user@example.com', 20);
    expect(known.statuses).toEqual([401, 401, 401, 429]);
    expect(unknown).toEqual(known);
  });

  it('checks concurrent guesses at one account in turn, so a burst cannot slip past the lock', async () => {
    await register('rosa@example.com');
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => login('rosa@example.com', `wrong guess ${i}`, `198.18.1.${i + 1}`)));
    const statuses = burst.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it('counts the hop the trusted proxy saw, not addresses a client writes into X-Forwarded-For', async () => {
    // Loopback (the test's proxy) is trusted; 10.9.9.9 is what it saw; the left entries are the client's own claims.
    for (let i = 0; i < 6; i++) {
      const res = await http('POST', url('/api/auth/login'), { body: { email: `spoof-${i}@example.com`, password: 'guess guess' }, headers: from(`203.0.113.${100 + i}, 10.9.9.9`) });
      expect(res.status).toBe(401);
    }
    const res = await http('POST', url('/api/auth/login'), { body: { email: 'spoof-x@example.com', password: 'guess guess' }, headers: from('203.0.113.250, 10.9.9.9') });
    expectTooMany(res, '(client address)');
  });
});

describe('accounts created before', () => {
  it('still log in with hashes made on the event loop ($2b$), by other bcrypt libraries ($2a$), and with passwords longer than 72 bytes', async () => {
    const long = `${'a long passphrase from the old days, '.repeat(3)}end`;
    const accounts = [
      { email: 'old-2b@example.com', password: 'an old password 2b', hash: bcrypt.hashSync('an old password 2b', 10) },
      { email: 'old-2a@example.com', password: 'an old password 2a', hash: bcrypt.hashSync('an old password 2a', 10).replace(/^\$2b\$/, '$2a$') },
      { email: 'old-long@example.com', password: long, hash: bcrypt.hashSync(long, 10) },
    ];
    expect(Buffer.byteLength(long)).toBeGreaterThan(72);
    for (const [i, a] of accounts.entries()) {
      await stack.db.query('INSERT INTO gateway.users (id, email, name, password_hash) VALUES ($1, $2, NULL, $3)', [randomUUID(), a.email, a.hash]);
      const res = await login(a.email, a.password, `198.51.100.${40 + i}`);
      expect(res.status).toBe(200);
      expect((await http('GET', url('/api/v1/runs'), { token: res.body.access_token })).status).toBe(200);
      expect((await login(a.email, `${a.password}x`.slice(-20), `198.51.100.${40 + i}`)).status).toBe(401);
    }
  });
});

describe('token revocation', () => {
  it('logout-all revokes every earlier token, this one included; a new login works', async () => {
    const me = await register('sam@example.com');
    const second = await login('sam@example.com', PASSWORD, '198.51.100.2');
    expect((await http('GET', url('/api/v1/runs'), { token: me.token })).status).toBe(200);
    const out = await http('POST', url('/api/auth/logout-all'), { token: me.token });
    expect(out.status).toBe(204);
    for (const token of [me.token, second.body.access_token]) {
      const res = await http('GET', url('/api/v1/runs'), { token });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('token is no longer valid (account deleted or token revoked)');
    }
    const fresh = await login('sam@example.com', PASSWORD, '198.51.100.2');
    expect((await http('GET', url('/api/v1/runs'), { token: fresh.body.access_token })).status).toBe(200);
    expect((await http('POST', url('/api/auth/logout-all'), {})).status).toBe(401);
  });

  it('deletes an account after password confirmation; its tokens cannot list or start runs', async () => {
    const me = await register('tara@example.com');
    const started = await http('POST', url('/api/v1/runs'), { token: me.token, body: { playbook: PLAYBOOK, inputs: { rows: [1, 2, 3] } } });
    expect(started).toMatchObject({ status: 201 });

    const noPassword = await http('DELETE', url('/api/auth/me'), { token: me.token, body: {} });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.error.violations.map((v: any) => v.field)).toEqual(['password']);
    const wrong = await http('DELETE', url('/api/auth/me'), { token: me.token, body: { password: 'not my password' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.violations).toEqual([expect.objectContaining({ field: 'password', reason: 'is wrong' })]);
    expect((await http('GET', url('/api/v1/runs'), { token: me.token })).status).toBe(200);

    const gone = await http('DELETE', url('/api/auth/me'), { token: me.token, body: { password: PASSWORD } });
    expect(gone.status).toBe(204);
    const runs = await http('GET', url('/api/v1/runs'), { token: me.token });
    expect(runs.status).toBe(401);
    const again = await http('POST', url('/api/v1/runs'), { token: me.token, body: { playbook: PLAYBOOK, inputs: { rows: [1, 2, 3] } } });
    expect(again.status).toBe(401);
    expect((await http('GET', url(`/api/v1/runs/${started.body.run.id}`), { token: me.token })).status).toBe(401);
    expect((await login('tara@example.com', PASSWORD, '198.51.100.3')).status).toBe(401);
    const rows = await stack.db.query(`SELECT count(*)::int AS n FROM gateway.users WHERE email = 'tara@example.com'`);
    expect(rows).toEqual([{ n: 0 }]);
    // The email can be registered again: a new account with a new id, none of the old one's runs.
    const reborn = await register('tara@example.com');
    expect(reborn.id).not.toBe(me.id);
    expect((await http('GET', url(`/api/v1/runs/${started.body.run.id}`), { token: reborn.token })).status).toBe(404);
  });

  it('refuses to delete an account that created a team with other members (409 naming the team)', async () => {
    const lead = await register('uma@example.com');
    const mate = await register('vic@example.com');
    const team = await http('POST', url('/api/v1/teams'), { token: lead.token, body: { name: 'Research' } });
    expect(team.status).toBe(201);
    expect((await http('POST', url(`/api/v1/teams/${team.body.team.id}/members`), { token: lead.token, body: { user_id: mate.id } })).status).toBe(201);
    const refused = await http('DELETE', url('/api/auth/me'), { token: lead.token, body: { password: PASSWORD } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(team.body.team.id);
    expect((await http('GET', url('/api/v1/runs'), { token: lead.token })).status).toBe(200);
    // A plain member can go; the team keeps its owner.
    expect((await http('DELETE', url('/api/auth/me'), { token: mate.token, body: { password: PASSWORD } })).status).toBe(204);
    const detail = await http('GET', url(`/api/v1/teams/${team.body.team.id}`), { token: lead.token });
    expect(detail.body.team.members.map((m: any) => m.user_id)).toEqual([lead.id]);
  });
});

describe('password rules at registration', () => {
  let weakCase = 0;
  it.each([
    ['a common password', 'iloveyou1', 'is one of the most common passwords'],
    ['a common password with decoration', 'Password123!', 'is one of the most common passwords'],
    ['one character repeated', 'zzzzzzzzzzzz', 'is too simple: it uses fewer than 4 different characters'],
    ['a run of digits', '23456789', 'is too simple: it is a run of consecutive characters'],
    ['the email itself', 'weak-{n}@example.com', 'must not be the email address or its name part'],
    ['73 bytes', 'x9'.repeat(36) + 'y', 'must be at most 72 bytes (UTF-8)'],
    ['74 bytes in 37 characters', 'é'.repeat(37), 'must be at most 72 bytes (UTF-8)'],
  ])('refuses %s with 400 naming password', async (_, password, reason) => {
    const email = `weak-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const res = await http('POST', url('/api/auth/register'), { body: { email, password: password.replace('weak-{n}@example.com', email) }, headers: from('198.51.100.9') });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'password', reason })]);
    // No account was made (each case from an address of its own: six failures would lock one).
    expect((await login(email, password, `198.51.100.${20 + ++weakCase}`)).status).toBe(401);
  });

  it('accepts a long passphrase of up to 72 bytes', async () => {
    const password = 'tall ships sail north at dawn, '.repeat(3).slice(0, 72);
    const res = await http('POST', url('/api/auth/register'), { body: { email: 'wren@example.com', password }, headers: from('198.51.100.11') });
    expect(res.status).toBe(201);
    expect((await login('wren@example.com', password, '198.51.100.11')).status).toBe(200);
  });
});
