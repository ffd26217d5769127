/** Every connector-runtime migration, in order (the service and the re-encrypt command both open the schema with it). */
import { ActionExecutions1765000000000, ActionReceipts1766800000000 } from '@af/service-kit';
import { Init1763800000000 } from './1763800000000-init.js';
import { OAuthTokens1764100000000 } from './1764100000000-oauth-tokens.js';
import { ResponseCache1764100000001 } from './1764100000001-response-cache.js';
import { Limits1764100000002 } from './1764100000002-limits.js';
import { Plugins1764100000003 } from './1764100000003-plugins.js';
import { Bindings1764100000004 } from './1764100000004-bindings.js';
import { UserConnections1765700000000 } from './1765700000000-user-connections.js';
import { ExecutionClaimer1766400000000 } from './1766400000000-execution-claimer.js';

export const CONNECTOR_RUNTIME_MIGRATIONS = [Init1763800000000, OAuthTokens1764100000000, ResponseCache1764100000001, Limits1764100000002, Plugins1764100000003, Bindings1764100000004, ActionExecutions1765000000000, UserConnections1765700000000, ExecutionClaimer1766400000000, ActionReceipts1766800000000];
