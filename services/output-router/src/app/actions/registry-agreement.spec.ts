/**
 * Every action this service serves says the same as the Action I/O Registry
 * about side effects: the orchestrator skips side-effecting steps in dry
 * runs and orders later steps behind them by the registry's word, and the
 * dispatcher records first answers by the handler's.
 */
import { defaultActionRegistry } from '@af/plan';
import { channelActions } from './channel-actions.js';
import { fileActions } from './file-actions.js';
import { inboxActions } from './inbox-actions.js';
import { routeOutputAction } from './route-output.js';
import { tableActions } from './table-actions.js';
import { teamActions } from './team-actions.js';

// Handlers are only built, never run: deps need only what their construction reads.
const deps = { documents: {} } as never;
const handlers = [...tableActions(deps), routeOutputAction(deps), ...fileActions(deps), ...inboxActions(deps), ...channelActions(deps), ...teamActions(deps)];

it.each(handlers.map((h) => [h.name, h.sideEffects] as const))('%s: side effects as the registry says (%s)', (name, sideEffects) => {
  const contract = defaultActionRegistry().get(name);
  expect(contract).toBeDefined();
  expect(contract!.sideEffect === true).toBe(sideEffects);
});
