import { appErrorOf, nodeContext } from '../../../test/unit/node-context.js';
import type { ServedAction } from '@af/service-kit';
import { actionExecutor, type ActionCall, type ActionPort } from './action.executor.js';

const router: ServedAction = { action: 'save_to_workspace', service: 'output-router', address: 'router:1', version: '1', sideEffects: true };

function port(served: ServedAction[]): ActionPort & { calls: Array<{ served: ServedAction; call: ActionCall }> } {
  const calls: Array<{ served: ServedAction; call: ActionCall }> = [];
  return {
    calls,
    servedBy: async (name) => served.find((s) => s.action === name),
    execute: async (s, call) => {
      calls.push({ served: s, call });
      return { outputs: { document_id: 'd1' }, replayed: false };
    },
  };
}

const node = { id: 'save', kind: 'tool', action: 'save_to_workspace', inputs: { content: 'x' }, params: { folder: 'Reports' } };

describe('actionExecutor', () => {
  it('calls the service that serves the action with the resolved inputs, params, owner and key, and outputs its answer', async () => {
    const p = port([router]);
    const out = await actionExecutor(p)(nodeContext(node, { attempt: 2, idempotencyKey: 'run-1:save:2', instanceId: 'save' }));
    expect(out).toEqual({ document_id: 'd1' });
    expect(p.calls).toEqual([
      {
        served: router,
        call: {
          action: 'save_to_workspace',
          inputs: { content: 'x' },
          params: { folder: 'Reports' },
          userId: 'u1',
          idempotencyKey: 'run-1:save:2',
          runId: 'run-1',
          nodeId: 'save',
          attempt: 2,
          timeoutMs: 1000,
        },
      },
    ]);
  });

  it('uses the instance id of a node inside a map iteration', async () => {
    const p = port([router]);
    await actionExecutor(p)(nodeContext(node, { instanceId: 'save[3]', idempotencyKey: 'run-1:save[3]:1' }));
    expect(p.calls[0]!.call).toMatchObject({ nodeId: 'save[3]', idempotencyKey: 'run-1:save[3]:1' });
  });

  it('fails action_unavailable, not retried, when no service of the deployment serves the action', async () => {
    const err = await appErrorOf(actionExecutor(port([]))(nodeContext(node)));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe("action_unavailable: no service of this deployment serves action 'save_to_workspace' (node save)");
    expect(err.violations).toEqual([{ field: 'nodes.save.action', reason: "no service of this deployment serves 'save_to_workspace'", code: 'action_unavailable' }]);
  });

  it('runs a node naming a plugin as plugin:<plugin>.<action>, passing the params on', async () => {
    const plugin: ServedAction = { action: 'plugin:slack_webhook.post_message', service: 'connector-runtime', address: 'cr:1', version: '1', sideEffects: true };
    const p = port([plugin]);
    await actionExecutor(p)(nodeContext({ id: 'post', kind: 'tool', action: 'post_message', inputs: { text: 'hi' }, params: { plugin: 'slack_webhook' } }));
    expect(p.calls[0]).toMatchObject({ served: plugin, call: { action: 'plugin:slack_webhook.post_message', inputs: { text: 'hi' }, params: { plugin: 'slack_webhook' } } });
  });
});
