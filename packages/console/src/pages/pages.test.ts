import { describe, expect, it } from 'vitest';
import { inputsSchema, stepNames } from './playbook-inputs';
import { statusFromFrame } from './run-frames';
import { formatDuration } from './durations';

const frame = (type: string, payload: Record<string, unknown> = {}) => ({ type, id: '1', timestamp: '', payload, nodeId: 'a' });

describe('statusFromFrame', () => {
  it('maps step frames to the status the graph shows', () => {
    expect(statusFromFrame(frame('node_start'))).toBe('running');
    expect(statusFromFrame(frame('node_complete'))).toBe('completed');
    expect(statusFromFrame(frame('node_complete', { status: 'skipped' }))).toBe('skipped');
    expect(statusFromFrame(frame('node_error'))).toBe('failed');
    expect(statusFromFrame(frame('hitl_request'))).toBe('waiting');
    expect(statusFromFrame(frame('log'))).toBeNull();
  });
});

describe('playbook YAML helpers', () => {
  const yaml = `id: p
inputs:
  - { name: org_name, type: string, default: Acme }
  - name: min_revenue
    type: number
    required: true
  - name: years
    type: list
steps:
  - name: find_org   # the search
    step_type: tool
  - name: "big_years"
    step_type: tool
outputs: x
`;

  it('reads step names in order, even from YAML that does not parse', () => {
    expect(stepNames(yaml)).toEqual(['find_org', 'big_years']);
    expect(stepNames(`${yaml}\n  : : broken [`)).toEqual(['find_org', 'big_years']);
  });

  it('turns inputs into the run form schema (types, defaults, required without default)', () => {
    expect(inputsSchema(yaml)).toEqual({
      type: 'object',
      properties: { org_name: { type: 'string', default: 'Acme' }, min_revenue: { type: 'number' }, years: { type: 'array' } },
      required: ['min_revenue'],
    });
    expect(inputsSchema('not: [valid')).toEqual({ type: 'object', properties: {}, required: [] });
  });
});

describe('formatDuration', () => {
  it('writes stored milliseconds back in the largest whole unit the API reads', () => {
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(86_400_000 * 2)).toBe('2d');
    expect(formatDuration(15 * 60_000)).toBe('15m');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration('15m')).toBe('15m');
    expect(formatDuration(undefined)).toBe('');
  });
});
