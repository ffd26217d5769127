/** Listing what the caller may act on: newest first, keyset-paged, filtered by kind, status, capability and run. */
import { AppError, type FieldViolation } from '@af/service-kit';
import { REQUEST_KINDS, REQUEST_STATUSES, type ApprovalRequest, type Principal, type RequestKind, type RequestStatus } from '../domain/request.js';
import type { RequestStore } from './ports.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ListQuery {
  principal: Principal;
  kinds: string[];
  statuses: string[];
  capabilityId: string;
  runId: string;
  pageSize: number;
  pageToken: string;
}

export class RequestQueries {
  constructor(private readonly store: RequestStore) {}

  async list(q: ListQuery): Promise<{ requests: ApprovalRequest[]; nextPageToken: string }> {
    if (!q.principal.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
    const v: FieldViolation[] = [];
    q.kinds.forEach((k, i) => !(REQUEST_KINDS as readonly string[]).includes(k) && v.push({ field: `kinds[${i}]`, reason: `must be one of ${REQUEST_KINDS.join(', ')}` }));
    q.statuses.forEach((s, i) => !(REQUEST_STATUSES as readonly string[]).includes(s) && v.push({ field: `statuses[${i}]`, reason: `must be one of ${REQUEST_STATUSES.join(', ')}` }));
    if (q.runId && !UUID.test(q.runId)) v.push({ field: 'run_id', reason: 'must be a run id (UUID)' });
    const size = q.pageSize === 0 ? 50 : q.pageSize;
    if (!Number.isInteger(size) || size < 1 || size > 200) v.push({ field: 'page_size', reason: 'must be between 1 and 200' });
    let after: { createdAt: string; id: string } | null = null;
    if (q.pageToken) {
      after = decodeToken(q.pageToken);
      if (!after) v.push({ field: 'page_token', reason: 'is not a token this API issued' });
    }
    if (v.length) throw new AppError('INVALID_ARGUMENT', v.map((x) => `${x.field}: ${x.reason}`).join('; '), { violations: v });
    const rows = await this.store.list(
      {
        principal: q.principal,
        kinds: q.kinds as RequestKind[],
        statuses: q.statuses as RequestStatus[],
        capabilityId: q.capabilityId || null,
        runId: q.runId || null,
      },
      size + 1,
      after,
    );
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return { requests: page, nextPageToken: rows.length > size && last ? encodeToken(last) : '' };
  }
}

function encodeToken(r: ApprovalRequest): string {
  return Buffer.from(JSON.stringify({ c: r.createdAt.toISOString(), i: r.id })).toString('base64url');
}

function decodeToken(token: string): { createdAt: string; id: string } | null {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof t.c === 'string' && typeof t.i === 'string' && UUID.test(t.i) && !Number.isNaN(Date.parse(t.c))) return { createdAt: t.c, id: t.i };
  } catch {
    // not ours
  }
  return null;
}
