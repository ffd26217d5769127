import { apiKeyFromHeaders, CreateApiKeySchema, generateApiKey, hashApiKey, looksLikeApiKey } from './api-keys.js';

describe('API keys', () => {
  it('generates afk_ keys with a display prefix and a SHA-256 hash; never two alike', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).toMatch(/^afk_[A-Za-z0-9_-]{43}$/);
    expect(a.prefix).toBe(a.key.slice(0, 12));
    expect(a.hash).toBe(hashApiKey(a.key));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).not.toContain(a.key.slice(4));
    expect(b.key).not.toBe(a.key);
    expect(looksLikeApiKey(a.key)).toBe(true);
    for (const bad of ['', 'afk_', 'afk_short', `xyz_${a.key.slice(4)}`, `${a.key}x`, `${a.key.slice(0, -1)}!`]) expect(looksLikeApiKey(bad)).toBe(false);
  });

  it('finds the key in X-API-Key or a Bearer afk_ header, and leaves JWTs alone', () => {
    expect(apiKeyFromHeaders({ 'x-api-key': ' afk_abc ' })).toBe('afk_abc');
    expect(apiKeyFromHeaders({ 'x-api-key': ['afk_1', 'afk_2'] })).toBe('afk_1');
    expect(apiKeyFromHeaders({ 'x-api-key': '' })).toBe('');
    expect(apiKeyFromHeaders({ authorization: 'Bearer afk_abc' })).toBe('afk_abc');
    expect(apiKeyFromHeaders({ authorization: 'Bearer eyJhbGciOi.x.y' })).toBeUndefined();
    expect(apiKeyFromHeaders({})).toBeUndefined();
  });

  it('validates create bodies, naming the field', () => {
    expect(CreateApiKeySchema.parse({ name: ' ci ' })).toEqual({ name: 'ci' });
    const bad = CreateApiKeySchema.safeParse({ name: '', team_id: 'nope', expires_in_days: 0.5 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['name', 'must not be empty'],
      ['team_id', 'must be a team id'],
      ['expires_in_days', 'must be a whole number of days'],
    ]);
    expect(CreateApiKeySchema.safeParse({ name: 'x', expires_in_days: 4000 }).error!.issues[0]!.message).toBe('must be at most 3650');
  });
});
