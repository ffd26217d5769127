import type { PlanNode } from '@af/plan';
import { of } from 'rxjs';
import { AppError } from '@af/service-kit';
import type { NodeContext } from '../../domain/node-executor.js';
import { ConnectorLimits } from '../../infra/connector.client.js';
import { detectNewDataExecutor, getMonitorWatermarkExecutor, recordsOf, setMonitorWatermarkExecutor, withStoredWatermark } from './monitor-detection.executor.js';

const monitorId = '0b5f2c9e-3a1d-4c6b-9e8f-7a6b5c4d3e2f';
const nodes = [{ id: 'pages', kind: 'tool', action: 'detect_new_data' }, { id: 'files', kind: 'tool', action: 'detect_folder_changes' }] as unknown as PlanNode[];
const stored = new Map<string, { kind: string; value: string }>();
const store = {
  async runPlan(runId: string) {
    if (runId === 'plain') return { runContext: 'interactive', userId: 'u', plan: { metadata: {}, nodes } };
    return { runContext: 'monitor', userId: 'u', plan: { metadata: { monitor: { monitor_id: monitorId, fire_at: '', suppress_if_empty: true } }, nodes } };
  },
  async get(_m: string, step: string) {
    const w = stored.get(step);
    return w ? { stepName: step, kind: w.kind, value: w.value, metadata: {}, lastCheckedAt: new Date('2026-01-05T00:00:00Z'), itemsFoundLast: 1, updatedAt: new Date() } : null;
  },
} as never;

const ctx = (over: Partial<NodeContext> & { id?: string; action?: string } = {}): NodeContext =>
  ({ runId: 'r1', userId: 'u', node: { id: over.id ?? 'pages', kind: 'tool', action: over.action ?? 'detect_new_data' }, instanceId: over.id ?? 'pages', inputs: {}, params: {}, attempt: 1, idempotencyKey: 'k', timeoutMs: 1000, signal: new AbortController().signal, ...over }) as unknown as NodeContext;

const calls: Array<Record<string, unknown>> = [];
let answer: unknown = { results: [{ id: 1, updated_at: '2026-01-01T10:00:00Z' }, { id: 2, updated_at: '2026-01-01T11:00:00Z' }] };
const client = {
  executeEndpoint: (req: { inputs: Record<string, unknown> }) => {
    calls.push(req.inputs);
    return of({ result: answer });
  },
} as never;
const detect = detectNewDataExecutor(client, new ConnectorLimits(4), store);

beforeEach(() => {
  stored.clear();
  calls.length = 0;
});

describe('detect_new_data', () => {
  it('first cycle: finds the date field, reports everything, the latest time is the watermark', async () => {
    const out = (await detect(ctx({ inputs: { connector: 'c', endpoint: 'e' } }))) as Record<string, unknown>;
    expect(out).toMatchObject({ count: 2, watermark: '2026-01-01T11:00:00.000Z', watermark_type: 'timestamp', date_field: 'updated_at', previous_watermark: null });
  });

  it('later cycles: only what follows the stored watermark; the since parameter carries it', async () => {
    stored.set('pages', { kind: 'timestamp', value: '2026-01-01T10:00:00.000Z' });
    const out = (await detect(ctx({ inputs: { connector: 'c', endpoint: 'e' }, params: { date_field: 'updated_at', since_param: 'since', extra_params: { q: 'x' } } }))) as Record<string, any>;
    expect(out.results.map((r: { id: number }) => r.id)).toEqual([2]);
    expect(calls.at(-1)).toEqual({ q: 'x', since: '2026-01-01T10:00:00.000Z' });
  });

  it('a cursor source: the stored cursor goes out, the next one comes back', async () => {
    stored.set('pages', { kind: 'cursor', value: 'c1' });
    answer = { results: [{ id: 3 }], next_cursor: 'c2' };
    const out = (await detect(ctx({ inputs: { connector: 'c', endpoint: 'e' }, params: { cursor_param: 'after' } }))) as Record<string, unknown>;
    expect([out.count, out.watermark, out.watermark_type, calls.at(-1)]).toEqual([1, 'c2', 'cursor', { after: 'c1' }]);
  });

  it('no date or cursor: the listing hash; the same listing reports nothing', async () => {
    answer = { results: [{ name: 'a' }] };
    const first = (await detect(ctx({ inputs: { connector: 'c', endpoint: 'e' } }))) as Record<string, any>;
    expect([first.count, first.watermark_type]).toEqual([1, 'hash']);
    stored.set('pages', { kind: 'hash', value: first.watermark });
    expect(((await detect(ctx({ inputs: { connector: 'c', endpoint: 'e' } }))) as Record<string, unknown>).count).toBe(0);
  });

  it('refuses a missing connector, a stored watermark of another kind, a bad given watermark', async () => {
    await expect(detect(ctx({ inputs: { endpoint: 'e' } }))).rejects.toThrow(/inputs.connector/);
    stored.set('pages', { kind: 'cursor', value: 'c1' });
    const err = await detect(ctx({ inputs: { connector: 'c', endpoint: 'e' }, params: { date_field: 'updated_at' } })).catch((e: AppError) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).violations[0]).toMatchObject({ code: 'watermark_kind_mismatch' });
    await expect(detect(ctx({ inputs: { connector: 'c', endpoint: 'e' }, params: { date_field: 'updated_at', watermark: 'yesterday' } }))).rejects.toThrow(/params.watermark/);
  });

  it('reads the records of the usual answer shapes', () => {
    expect(recordsOf([{ a: 1 }, 2])).toEqual([{ a: 1 }, { value: 2 }]);
    expect(recordsOf({ data: [{ a: 1 }] })).toEqual([{ a: 1 }]);
    expect(recordsOf({ n: 1 })).toEqual([]);
  });
});

describe('watermark actions', () => {
  it('get answers the stored watermark; both refuse a run that is no monitor cycle', async () => {
    stored.set('pages', { kind: 'timestamp', value: '2026-01-01T10:00:00.000Z' });
    expect(await getMonitorWatermarkExecutor(store)(ctx({ inputs: { step_name: 'pages' } }))).toMatchObject({ watermark: '2026-01-01T10:00:00.000Z', watermark_type: 'timestamp', items_found_last: 1 });
    await expect(getMonitorWatermarkExecutor(store)(ctx({ runId: 'plain', inputs: { step_name: 'pages' } }))).rejects.toThrow(/monitor/);
    await expect(setMonitorWatermarkExecutor(store)(ctx({ runId: 'plain', inputs: { watermark: 'x' } }))).rejects.toThrow(/monitor/);
  });

  it('set stages a value of the stored kind and refuses a value or kind that does not fit', async () => {
    stored.set('pages', { kind: 'timestamp', value: '2026-01-01T10:00:00.000Z' });
    const set = setMonitorWatermarkExecutor(store);
    expect(await set(ctx({ inputs: { watermark: '2026-01-02T00:00:00Z' }, params: { step_name: 'pages' } }))).toEqual({
      success: true,
      previous_watermark: '2026-01-01T10:00:00.000Z',
      staged: { step: 'pages', kind: 'timestamp', value: '2026-01-02T00:00:00Z' },
    });
    await expect(set(ctx({ inputs: { watermark: 'soon' }, params: { step_name: 'pages' } }))).rejects.toThrow(/inputs.watermark/);
    await expect(set(ctx({ inputs: { watermark: '3' }, params: { step_name: 'pages', watermark_type: 'offset' } }))).rejects.toThrow(/keeps a timestamp watermark/);
    // Two detection steps: the step must be named.
    await expect(set(ctx({ inputs: { watermark: 'x' } }))).rejects.toThrow(/params.step_name/);
  });
});

describe('withStoredWatermark', () => {
  it('hands a served detection action its stored watermark (and a folder its last check)', async () => {
    stored.set('files', { kind: 'hash', value: 'a'.repeat(64) });
    const seen: unknown[] = [];
    const wrapped = withStoredWatermark(async (c) => seen.push(c.params), store);
    await wrapped(ctx({ id: 'files', action: 'detect_folder_changes', params: { include_subfolders: true } }));
    await wrapped(ctx({ id: 'files', action: 'detect_folder_changes', params: { watermark: 'b'.repeat(64) } }));
    expect(seen).toEqual([{ include_subfolders: true, watermark: 'a'.repeat(64), since: '2026-01-05T00:00:00.000Z' }, { watermark: 'b'.repeat(64) }]);
  });
});
