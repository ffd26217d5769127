import { actsOutsideRun, refusesSideEffects, wouldBeInputs } from './dry-run.js';

describe('dry runs', () => {
  it('refuse side effects unless allowed', () => {
    expect(refusesSideEffects({ metadata: { dry_run: { allow_side_effects: false } } })).toBe(true);
    expect(refusesSideEffects({ metadata: { dry_run: {} } })).toBe(true);
    expect(refusesSideEffects({ metadata: { dry_run: true } })).toBe(true);
    expect(refusesSideEffects({ metadata: { dry_run: { allow_side_effects: true } } })).toBe(false);
    expect(refusesSideEffects({ metadata: {} })).toBe(false);
    expect(refusesSideEffects({ metadata: { dry_run: false } })).toBe(false);
  });

  it.each([
    [{ kind: 'tool', action: 'save_to_workspace' }, true],
    [{ kind: 'tool', action: 'send_notification' }, true],
    [{ kind: 'tool', action: 'some_plugin_action' }, true],
    [{ kind: 'subflow' }, true],
    [{ kind: 'tool', action: 'call_connector' }, false],
    [{ kind: 'tool', action: 'transform_data' }, false],
    [{ kind: 'tool', action: 'search_documents' }, false],
    [{ kind: 'llm', action: 'analyze' }, false],
    [{ kind: 'approval' }, false],
  ] as const)('%p acts outside the run: %p', (node, expected) => {
    expect(actsOutsideRun(node)).toBe(expected);
  });

  it('records would-be inputs, summarised when large', () => {
    expect(wouldBeInputs({ title: 'x' })).toEqual({ would_be_inputs: { title: 'x' } });
    expect(wouldBeInputs({ body: 'y'.repeat(100) }, 50)).toEqual({ would_be_inputs_truncated: true, would_be_input_keys: ['body'], would_be_inputs_bytes: 111 });
  });
});
