/** The master-agent query routes, one process per service on NATS JetStream; and a deployment without a model. */
import { noModelSuite, querySuite } from './query.suite.js';

querySuite('jetstream');
noModelSuite();
