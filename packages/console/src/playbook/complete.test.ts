import { describe, expect, it } from 'vitest';
import { completeAt, pathAt, type JsonSchema } from './complete';
import schema from './playbook.schema.json';

const S = schema as JsonSchema;
const at = (text: string) => completeAt(text.replace('|', ''), text.indexOf('|'), S, ['transform_data', 'call_connector', 'llm_analyze']);
const labels = (text: string) => at(text)?.options.map((o) => o.label) ?? [];

describe('the path at the caret', () => {
  it('follows keys and list items upward by indentation', () => {
    const lines = ['id: x', 'steps:', '  - name: a', '    step_type: tool', '    inp'];
    expect(pathAt(lines, 4)).toEqual(['steps', '*']);
    expect(pathAt(['id: x', 'steps:', '  - na'], 2)).toEqual(['steps', '*']);
    expect(pathAt(['id: x', 've'], 1)).toEqual([]);
    expect(pathAt(['steps:', '  - name: a', '    errr'], 2)).toEqual(['steps', '*']);
  });
});

describe('completion from the playbook JSON Schema', () => {
  it('offers the top-level keys not written yet', () => {
    const top = labels('id: x\nname: X\n|');
    expect(top).toEqual(expect.arrayContaining(['version', 'steps', 'inputs', 'triggers']));
    expect(top).not.toContain('id');
    expect(top).not.toContain('name');
    expect(labels('id: x\nst|')).toEqual(['steps']);
  });

  it('offers a step\'s keys inside a step, without those it has', () => {
    const keys = labels('id: x\nsteps:\n  - name: a\n    step_type: tool\n    |');
    expect(keys).toEqual(expect.arrayContaining(['action', 'inputs', 'description']));
    expect(keys).not.toContain('name');
    expect(keys).not.toContain('step_type');
    expect(keys).not.toContain('version');
  });

  it('offers enum values and action names after a key', () => {
    expect(labels('steps:\n  - name: a\n    step_type: |')).toEqual(['tool', 'llm_task', 'approval']);
    expect(labels('steps:\n  - name: a\n    step_type: ll|')).toEqual(['llm_task']);
    expect(labels('steps:\n  - name: a\n    action: tr|')).toEqual(['transform_data']);
    expect(labels('execution_mode: |')).toEqual(expect.arrayContaining(['deterministic', 'llm_augmented', 'hybrid']));
  });

  it('replaces only the typed prefix', () => {
    const c = at('id: x\nst|');
    expect(c).toMatchObject({ from: 6, to: 8, kind: 'key' });
    expect(c!.options[0]!.insert).toBe('steps:');
  });

  it('offers nothing inside free-form values', () => {
    expect(at('description: some te|')).toBeNull();
  });
});

describe('the committed schema', () => {
  it('is the playbook format of @af/plan (run node scripts/playbook-schema.mjs after changing it)', async () => {
    // @ts-expect-error a plain .mjs build script without types
    const { playbookJsonSchema } = await import('../../scripts/playbook-schema-source.mjs');
    expect(await playbookJsonSchema()).toEqual(schema);
    // Loading @af/plan and zod takes over a second on an idle machine and several under CI's load.
  }, 60_000);
});
