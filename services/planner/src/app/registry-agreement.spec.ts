/**
 * The journal actions this service serves say the same as the Action I/O
 * Registry about side effects, and the registry names this service as
 * their owner.
 */
import { actionOwner, defaultActionRegistry } from '@af/plan';
import { Journal } from './journal.js';

const handlers = new Journal({} as never, {} as never, {} as never).actions();

it('serves write_journal_entry and query_journal', () => {
  expect(handlers.map((h) => h.name).sort()).toEqual(['query_journal', 'write_journal_entry']);
});

it.each(handlers.map((h) => [h.name, h.sideEffects] as const))('%s: side effects as the registry says (%s), owned by the planner', (name, sideEffects) => {
  const registry = defaultActionRegistry();
  const contract = registry.get(name);
  expect(contract).toBeDefined();
  expect(contract!.sideEffect === true).toBe(sideEffects);
  expect(actionOwner(name, registry)).toBe('planner');
});
