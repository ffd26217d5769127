import { canWrite, facetSourcesFor, OPERATOR_USER_ID, ownerKey, ownerView, parseOwnerKey, readableOwners, resolveByOwner, resolveOne, writableOwners, writeOwner } from './ownership.js';

const alice = { userId: 'alice', teamIds: ['t-b', 't-a'] };
const bob = { userId: 'bob', teamIds: [] };
const operator = { userId: OPERATOR_USER_ID, teamIds: [] };

describe('owner keys', () => {
  it('round-trip and show as visibility + owner id', () => {
    for (const o of [{ kind: 'user', id: 'u:1' }, { kind: 'team', id: 't1' }, { kind: 'shared' }] as const) expect(parseOwnerKey(ownerKey(o))).toEqual(o);
    expect(parseOwnerKey('robot:x')).toBeUndefined();
    expect(parseOwnerKey('user:')).toBeUndefined();
    expect(ownerView('user:alice')).toEqual({ visibility: 'private', ownerId: 'alice' });
    expect(ownerView('team:t1')).toEqual({ visibility: 'team', ownerId: 't1' });
    expect(ownerView('shared')).toEqual({ visibility: 'shared', ownerId: '' });
  });
});

describe('who reads and writes what', () => {
  it('reads own, then teams by id, then shared; the operator reads the shared catalog', () => {
    expect(readableOwners(alice)).toEqual(['user:alice', 'team:t-a', 'team:t-b', 'shared']);
    expect(readableOwners(bob)).toEqual(['user:bob', 'shared']);
    expect(readableOwners(operator)).toEqual(['shared']);
  });

  it('writes own and member teams; only the operator writes the shared catalog', () => {
    expect(canWrite(alice, 'user:alice')).toBe(true);
    expect(canWrite(alice, 'team:t-a')).toBe(true);
    expect(canWrite(bob, 'user:alice')).toBe(false);
    expect(canWrite(bob, 'team:t-a')).toBe(false);
    expect(canWrite(alice, 'shared')).toBe(false);
    expect(canWrite(operator, 'shared')).toBe(true);
    expect(canWrite(operator, 'user:alice')).toBe(false);
    expect(canWrite(alice, 'nonsense')).toBe(false);
    expect(writableOwners(alice)).toEqual(['user:alice', 'team:t-a', 'team:t-b']);
    expect(writableOwners(operator)).toEqual(['shared']);
  });

  it('a registration uses facets of its own owner and the shared catalog', () => {
    expect(facetSourcesFor('team:t1')).toEqual(['team:t1', 'shared']);
    expect(facetSourcesFor('shared')).toEqual(['shared']);
  });
});

describe('writeOwner', () => {
  it('defaults to the caller (the operator: the shared catalog)', () => {
    expect(writeOwner(alice, {})).toEqual({ ok: true, owner: 'user:alice' });
    expect(writeOwner(alice, { visibility: 'private' })).toEqual({ ok: true, owner: 'user:alice' });
    expect(writeOwner(operator, {})).toEqual({ ok: true, owner: 'shared' });
    expect(writeOwner(operator, { visibility: 'shared' })).toEqual({ ok: true, owner: 'shared' });
  });

  it('a team the caller belongs to', () => {
    expect(writeOwner(alice, { teamId: 't-a' })).toEqual({ ok: true, owner: 'team:t-a' });
    expect(writeOwner(alice, { visibility: 'team', teamId: 't-b' })).toEqual({ ok: true, owner: 'team:t-b' });
  });

  it('refuses bad input (400) and other owners (403), naming the field', () => {
    expect(writeOwner(alice, { visibility: 'public' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', field: 'visibility' });
    expect(writeOwner(alice, { teamId: 42 })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', field: 'teamId' });
    expect(writeOwner(alice, { teamId: 'has space' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', field: 'teamId' });
    expect(writeOwner(alice, { visibility: 'team' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', field: 'teamId', reason: "is required with visibility 'team'" });
    expect(writeOwner(alice, { visibility: 'private', teamId: 't-a' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', field: 'teamId' });
    expect(writeOwner(bob, { teamId: 't-a' })).toEqual({ ok: false, code: 'PERMISSION_DENIED', field: 'teamId', reason: "you are not a member of team 't-a'" });
    expect(writeOwner(alice, { visibility: 'shared' })).toMatchObject({ ok: false, code: 'PERMISSION_DENIED', field: 'visibility', reason: expect.stringContaining('only operators') });
    expect(writeOwner(operator, { teamId: 't-a' })).toMatchObject({ ok: false, code: 'INVALID_ARGUMENT', field: 'visibility' });
    expect(writeOwner(alice, { teamId: 'x' }, { visibility: 'vis', teamId: 'team_id' })).toMatchObject({ field: 'team_id' });
  });
});

describe('resolution per owner', () => {
  const rows = [
    { id: 'writer', owner: 'shared', v: 'shared' },
    { id: 'writer', owner: 'user:bob', v: 'bob' },
    { id: 'writer', owner: 'team:t-b', v: 'team b' },
    { id: 'writer', owner: 'team:t-a', v: 'team a' },
    { id: 'editor', owner: 'user:bob', v: 'bob editor' },
    { id: 'editor', owner: 'shared', v: 'shared editor' },
    { id: 'lookalike', owner: 'user:bob', v: 'bob only' },
    { id: 'own', owner: 'user:alice', v: 'alice' },
  ];
  const resolve = (p: { userId: string; teamIds: string[] }) =>
    Object.fromEntries(resolveByOwner(rows, readableOwners(p), (r) => r.id, (r) => r.owner).map((r) => [r.id, r.v]));

  it('own > team (by id) > shared; others never', () => {
    expect(resolve(alice)).toEqual({ writer: 'team a', editor: 'shared editor', own: 'alice' });
    expect(resolve(bob)).toEqual({ writer: 'bob', editor: 'bob editor', lookalike: 'bob only' });
    expect(resolve({ userId: 'carol', teamIds: ['t-b'] })).toEqual({ writer: 'team b', editor: 'shared editor' });
    expect(resolve(operator)).toEqual({ writer: 'shared', editor: 'shared editor' });
  });

  it('resolveOne picks the best owner holding the id', () => {
    const byOwner = new Map([
      ['shared', 1],
      ['team:t-a', 2],
    ]);
    expect(resolveOne(byOwner, readableOwners(alice))).toEqual({ owner: 'team:t-a', item: 2 });
    expect(resolveOne(byOwner, readableOwners(bob))).toEqual({ owner: 'shared', item: 1 });
    expect(resolveOne(new Map([['user:bob', 1]]), readableOwners(alice))).toBeUndefined();
    expect(resolveOne(undefined, readableOwners(alice))).toBeUndefined();
  });
});
