import type { PlanNode } from '@af/plan';
import { cycleSuppressed, foundCount, monitorMetadata, monitorRunInfo, stagedWatermarks, watermarkStep, type NodeView } from './monitor-run.js';

const node = (id: string, action?: string, kind = 'tool'): PlanNode => ({ id, kind, action, dependsOn: [], inputs: {}, params: {} }) as unknown as PlanNode;
const nodes = [node('new_pages', 'detect_new_data'), node('new_files', 'detect_new_files'), node('summarise', 'transform_data'), node('advance', 'set_monitor_watermark')];
const monitorId = '0b5f2c9e-3a1d-4c6b-9e8f-7a6b5c4d3e2f';
const info = { monitorId, fireAt: '2026-01-01T00:00:00.000Z', suppressIfEmpty: true };

function view(states: Record<string, string>, outputs: Record<string, unknown>): NodeView {
  return { status: (id) => states[id], output: (id) => outputs[id] };
}

describe('monitorRunInfo', () => {
  it('reads the marker of a monitor run only', () => {
    const plan = { metadata: { monitor: monitorMetadata(info) } };
    expect(monitorRunInfo({ runContext: 'monitor', plan })).toEqual(info);
    expect(monitorRunInfo({ runContext: 'scheduled', plan })).toBeNull();
    expect(monitorRunInfo({ runContext: 'monitor', plan: { metadata: { monitor: { monitor_id: 'nope' } } } })).toBeNull();
    expect(monitorRunInfo({ runContext: 'monitor', plan: {} })).toBeNull();
  });
});

describe('foundCount', () => {
  it('reads count, the change counts, or the first list', () => {
    expect(foundCount({ count: 3, results: [] })).toBe(3);
    expect(foundCount({ added_count: 1, modified_count: 2, deleted_count: 0 })).toBe(3);
    expect(foundCount({ posts: [1, 2] })).toBe(2);
    expect(foundCount(null)).toBe(0);
  });
});

describe('cycleSuppressed', () => {
  it('is suppressed once every detection step completed having found nothing', () => {
    const empty = { new_pages: { count: 0 }, new_files: { count: 0 } };
    expect(cycleSuppressed(info, nodes, view({ new_pages: 'completed', new_files: 'completed' }, empty))).toBe(true);
    // One still running: not decided yet.
    expect(cycleSuppressed(info, nodes, view({ new_pages: 'completed', new_files: 'running' }, empty))).toBe(false);
    // One found something, or one failed: the cycle runs.
    expect(cycleSuppressed(info, nodes, view({ new_pages: 'completed', new_files: 'completed' }, { ...empty, new_files: { count: 1 } }))).toBe(false);
    expect(cycleSuppressed(info, nodes, view({ new_pages: 'completed', new_files: 'failed' }, empty))).toBe(false);
    // suppress_if_empty off, or not a monitor run.
    expect(cycleSuppressed({ ...info, suppressIfEmpty: false }, nodes, view({ new_pages: 'completed', new_files: 'completed' }, empty))).toBe(false);
    expect(cycleSuppressed(null, nodes, view({ new_pages: 'completed', new_files: 'completed' }, empty))).toBe(false);
  });
});

describe('stagedWatermarks', () => {
  const kindOf = (action: string) => ({ detect_new_data: 'cursor', detect_new_files: 'timestamp' })[action];

  it('takes each completed detection step’s watermark, its own kind first', () => {
    const r = stagedWatermarks(
      nodes,
      view(
        { new_pages: 'completed', new_files: 'completed' },
        { new_pages: { count: 2, watermark: '2026-01-02T00:00:00.000Z', watermark_type: 'timestamp' }, new_files: { count: 0, watermark: '2026-01-01T00:00:00Z' } },
      ),
      kindOf,
    );
    expect(r).toEqual({
      staged: [
        { step: 'new_pages', kind: 'timestamp', value: '2026-01-02T00:00:00.000Z', found: 2 },
        { step: 'new_files', kind: 'timestamp', value: '2026-01-01T00:00:00Z', found: 0 },
      ],
      refused: [],
    });
  });

  it('leaves out a step that did not complete and refuses a value of the wrong kind', () => {
    const r = stagedWatermarks(nodes, view({ new_pages: 'failed', new_files: 'completed' }, { new_pages: { watermark: 'c9' }, new_files: { count: 1, watermark: 'yesterday' } }), kindOf);
    expect(r.staged).toEqual([]);
    expect(r.refused).toEqual([{ step: 'new_files', reason: expect.stringContaining('ISO 8601') }]);
  });

  it('an explicit set_monitor_watermark wins for its step', () => {
    const r = stagedWatermarks(
      nodes,
      view({ new_pages: 'completed', advance: 'completed' }, { new_pages: { count: 4, watermark: 'c1' }, advance: { staged: { step: 'new_pages', kind: 'cursor', value: 'c2' } } }),
      kindOf,
    );
    expect(r.staged).toEqual([{ step: 'new_pages', kind: 'cursor', value: 'c2', found: 4 }]);
  });

  it('a set_monitor_watermark without a kind takes the kind its detection step reported', () => {
    const r = stagedWatermarks(
      nodes,
      view(
        { new_pages: 'completed', advance: 'completed' },
        { new_pages: { count: 1, watermark: '2026-01-01T00:00:00.000Z', watermark_type: 'timestamp' }, advance: { staged: { step: 'new_pages', value: '2026-01-02T00:00:00.000Z' } } },
      ),
      kindOf,
    );
    expect(r.staged).toEqual([{ step: 'new_pages', kind: 'timestamp', value: '2026-01-02T00:00:00.000Z', found: 1 }]);
  });
});

describe('watermarkStep', () => {
  it('is the named step, or the only detection step', () => {
    expect(watermarkStep(nodes, 'new_files')).toEqual({ step: 'new_files' });
    expect(watermarkStep([node('d', 'detect_new_data'), node('x', 'transform_data')], undefined)).toEqual({ step: 'd' });
    expect(watermarkStep(nodes, undefined)).toEqual({ error: expect.stringContaining('2 detection steps (new_pages, new_files)') });
    expect(watermarkStep([node('x', 'transform_data')], '')).toEqual({ error: 'the plan has no detection step' });
  });
});
