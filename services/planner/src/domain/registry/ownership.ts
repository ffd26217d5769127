/**
 * Who owns a capability registration or a facet, and who may see and change
 * it. An owner is a user (the registrant), a team the registrant belongs to,
 * or the operator-vetted shared catalog (written only by the operator
 * principal `system:operator`). Ids and facet names resolve per owner: the
 * same id may exist for several owners, and a principal gets the best one it
 * can read — its own, then its teams' (by team id), then the shared catalog.
 * Pure: the stored form of an owner is its key (`user:<id>`, `team:<id>`,
 * `shared`).
 */

/** The principal the operator tooling acts as (minted only for holders of the service secret). */
export const OPERATOR_USER_ID = 'system:operator';

export interface Principal {
  userId: string;
  teamIds: readonly string[];
}

export type Owner = { kind: 'user'; id: string } | { kind: 'team'; id: string } | { kind: 'shared' };
export type Visibility = 'private' | 'team' | 'shared';
export const VISIBILITIES: readonly Visibility[] = ['private', 'team', 'shared'];

export const SHARED = 'shared';

export function ownerKey(o: Owner): string {
  return o.kind === 'shared' ? SHARED : `${o.kind}:${o.id}`;
}

export function parseOwnerKey(key: string): Owner | undefined {
  if (key === SHARED) return { kind: 'shared' };
  const at = key.indexOf(':');
  const kind = key.slice(0, at);
  const id = key.slice(at + 1);
  if (at < 0 || !id || (kind !== 'user' && kind !== 'team')) return undefined;
  return { kind, id };
}

/** How an owner shows in views: `{visibility, ownerId}` (`ownerId` empty for the shared catalog). */
export function ownerView(key: string): { visibility: Visibility; ownerId: string } {
  const o = parseOwnerKey(key);
  if (!o || o.kind === 'shared') return { visibility: 'shared', ownerId: '' };
  return { visibility: o.kind === 'user' ? 'private' : 'team', ownerId: o.id };
}

export const isOperator = (p: Principal): boolean => p.userId === OPERATOR_USER_ID;

const teamsOf = (p: Principal): string[] => [...new Set(p.teamIds.filter((t) => typeof t === 'string' && t !== ''))].sort();

/** The owner keys a principal reads, best first: own, teams (by id), shared. The operator reads the shared catalog. */
export function readableOwners(p: Principal): string[] {
  if (isOperator(p)) return [SHARED];
  return [ownerKey({ kind: 'user', id: p.userId }), ...teamsOf(p).map((id) => ownerKey({ kind: 'team', id })), SHARED];
}

/** The owner keys whose facets a registration for `owner` may use (what every reader of the capability also sees). */
export function facetSourcesFor(owner: string): string[] {
  return owner === SHARED ? [SHARED] : [owner, SHARED];
}

/** May the principal change what `owner` owns? Users their own, members their team's, the operator the shared catalog. */
export function canWrite(p: Principal, owner: string): boolean {
  const o = parseOwnerKey(owner);
  if (!o) return false;
  if (o.kind === 'shared') return isOperator(p);
  if (isOperator(p)) return false;
  return o.kind === 'user' ? o.id === p.userId : teamsOf(p).includes(o.id);
}

/** The owner keys a principal may change, best first (heartbeat, deregister resolve ids among these). */
export function writableOwners(p: Principal): string[] {
  return readableOwners(p).filter((o) => canWrite(p, o));
}

export interface OwnershipRequest {
  visibility?: unknown;
  teamId?: unknown;
}

export type OwnershipDecision = { ok: true; owner: string } | { ok: false; code: 'INVALID_ARGUMENT' | 'PERMISSION_DENIED'; field: string; reason: string };

const TEAM_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * The owner a write (registration, facet upsert) goes to: the caller's own by
 * default, a team with `teamId` (visibility `team`), the shared catalog with
 * visibility `shared` (operator only; the operator's writes always go there).
 * `fields` names the request fields in errors.
 */
export function writeOwner(p: Principal, req: OwnershipRequest, fields: { visibility: string; teamId: string } = { visibility: 'visibility', teamId: 'teamId' }): OwnershipDecision {
  const bad = (field: string, reason: string): OwnershipDecision => ({ ok: false, code: 'INVALID_ARGUMENT', field, reason });
  const denied = (field: string, reason: string): OwnershipDecision => ({ ok: false, code: 'PERMISSION_DENIED', field, reason });
  const { visibility, teamId } = req;
  if (visibility !== undefined && (typeof visibility !== 'string' || !(VISIBILITIES as readonly string[]).includes(visibility))) {
    return bad(fields.visibility, `must be one of ${VISIBILITIES.join(', ')}`);
  }
  if (teamId !== undefined && (typeof teamId !== 'string' || !TEAM_ID.test(teamId))) return bad(fields.teamId, 'must be a team id (1-200 letters, digits, _ . : -)');
  const wanted: Visibility = (visibility as Visibility | undefined) ?? (teamId !== undefined ? 'team' : isOperator(p) ? 'shared' : 'private');
  if (wanted !== 'team' && teamId !== undefined) return bad(fields.teamId, `is only allowed with ${fields.visibility} 'team'`);
  if (isOperator(p)) {
    return wanted === 'shared' ? { ok: true, owner: SHARED } : bad(fields.visibility, `the operator (${OPERATOR_USER_ID}) writes the shared catalog only: use 'shared'`);
  }
  if (wanted === 'shared') return denied(fields.visibility, `only operators (${OPERATOR_USER_ID}) change the shared catalog`);
  if (wanted === 'private') return { ok: true, owner: ownerKey({ kind: 'user', id: p.userId }) };
  if (teamId === undefined) return bad(fields.teamId, `is required with ${fields.visibility} 'team'`);
  if (!teamsOf(p).includes(teamId as string)) return denied(fields.teamId, `you are not a member of team '${teamId as string}'`);
  return { ok: true, owner: ownerKey({ kind: 'team', id: teamId as string }) };
}

/**
 * Per id, the entry of the best owner among `owners` (best first); entries of
 * other owners are dropped. Result in the order of first appearance.
 */
export function resolveByOwner<T>(items: Iterable<T>, owners: readonly string[], idOf: (t: T) => string, ownerOf: (t: T) => string): T[] {
  const rank = new Map(owners.map((o, i) => [o, i]));
  const best = new Map<string, { item: T; rank: number }>();
  for (const item of items) {
    const r = rank.get(ownerOf(item));
    if (r === undefined) continue;
    const id = idOf(item);
    const current = best.get(id);
    if (!current || r < current.rank) best.set(id, { item, rank: r });
  }
  return [...best.values()].map((b) => b.item);
}

/** The best owner among `owners` that has `id` (one entry per owner in `byOwner`). */
export function resolveOne<T>(byOwner: ReadonlyMap<string, T> | undefined, owners: readonly string[]): { owner: string; item: T } | undefined {
  if (!byOwner) return undefined;
  for (const owner of owners) {
    const item = byOwner.get(owner);
    if (item !== undefined) return { owner, item };
  }
  return undefined;
}
