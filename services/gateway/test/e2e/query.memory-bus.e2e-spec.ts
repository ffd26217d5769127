/** The master-agent query routes with the in-process event bus of `pnpm start`. */
import { querySuite } from './query.suite.js';

querySuite('memory');
