/** The run and playbook API with NATS JetStream (one process per service). */
import { runApiSuite } from './run-api.suite.js';

runApiSuite('jetstream');
