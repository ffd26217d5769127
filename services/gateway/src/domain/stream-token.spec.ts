import { randomUUID } from 'node:crypto';
import { TokenService } from './credentials.js';
import { StreamTokens, streamPathProblem } from './stream-token.js';

const SECRET = 'x'.repeat(40);
const runPath = () => `/api/v1/runs/${randomUUID()}/events`;

describe('streamPathProblem', () => {
  it('accepts the events path of a run', () => {
    expect(streamPathProblem(runPath())).toBeUndefined();
  });

  it.each([
    ['a path with a query string', `${runPath()}?x=1`],
    ['a run id that is not a uuid', '/api/v1/runs/abc/events'],
    ['a route that does not stream', '/api/v1/runs'],
    ['a relative path', 'api/v1/runs/0b0f4c8e-0000-4000-8000-000000000000/events'],
    ['a path with dot segments', '/api/v1/runs/../runs/0b0f4c8e-0000-4000-8000-000000000000/events'],
    ['an empty path', ''],
  ])('refuses %s', (_, path) => {
    expect(streamPathProblem(path)).toMatch(/Server-Sent Events route/);
  });
});

describe('StreamTokens', () => {
  const tokens = new StreamTokens(SECRET, 60);

  it('verifies a token for the path it was issued for, with the account and its token version', async () => {
    const path = runPath();
    const { token, expiresIn } = await tokens.issue('user-1', 3, path);
    expect(expiresIn).toBe(60);
    await expect(tokens.verify(token, path)).resolves.toEqual({ userId: 'user-1', version: 3, path });
  });

  it('refuses the token on another path', async () => {
    const { token } = await tokens.issue('user-1', 0, runPath());
    await expect(tokens.verify(token, runPath())).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('was issued for') });
  });

  it('refuses an expired token, saying how to get a new one', async () => {
    const path = runPath();
    const { token } = await tokens.issue('user-1', 0, path, Date.now() - 61_000);
    await expect(tokens.verify(token, path)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('expired') });
  });

  it('refuses a token signed with another key, and a bearer token', async () => {
    const path = runPath();
    const other = await new StreamTokens('y'.repeat(40), 60).issue('user-1', 0, path);
    await expect(tokens.verify(other.token, path)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'stream_token is not valid' });
    const bearer = await new TokenService(SECRET, 3600).issue('user-1', 0);
    await expect(tokens.verify(bearer.token, path)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'stream_token is not valid' });
  });

  it('is never accepted as a bearer token', async () => {
    const { token } = await tokens.issue('user-1', 0, runPath());
    await expect(new TokenService(SECRET, 3600).verify(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses to issue a token for a path that does not stream, naming the field', async () => {
    await expect(tokens.issue('user-1', 0, '/api/v1/runs')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'path' }] });
  });
});
