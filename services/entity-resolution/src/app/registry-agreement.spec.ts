/**
 * Every action this service serves says the same as the Action I/O Registry
 * about side effects: the orchestrator skips side-effecting steps in dry
 * runs and orders later steps behind them by the registry's word, and the
 * dispatcher records first answers by the handler's.
 */
import { defaultActionRegistry } from '@af/plan';
import { entityActions } from './actions.js';

const handlers = entityActions({} as never, { maxAnalyzeNodes: 1000, autoThreshold: 0.9, reviewThreshold: 0.5 });

it.each(handlers.map((h) => [h.name, h.sideEffects] as const))('%s: side effects as the registry says (%s)', (name, sideEffects) => {
  const contract = defaultActionRegistry().get(name);
  expect(contract).toBeDefined();
  expect(contract!.sideEffect === true).toBe(sideEffects);
});
