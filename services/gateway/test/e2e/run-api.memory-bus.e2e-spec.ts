/** The run and playbook API with the in-process event bus of `pnpm start` (every service in one process). */
import { runApiSuite } from './run-api.suite.js';

runApiSuite('memory');
