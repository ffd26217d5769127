/**
 * Which network destinations a connector may reach (SSRF guard). Connector
 * definitions are written by users, so a `base_url` — or a redirect, or a
 * DNS answer — must not be able to point the service at its own network:
 * loopback, private ranges, link-local, cloud metadata endpoints and the
 * other special-purpose ranges are refused unless an operator allow-lists
 * them with `CONNECTOR_EGRESS_ALLOW` (parsed and decided by `@af/egress`,
 * which the planner and orchestrator share for capability endpoints).
 *
 * An entry scoped to one connector names its owner too
 * (`<owner-user-id>/<connector-id>=entry`): connector ids are chosen by
 * users, so the owner is what keeps another tenant's look-alike connector
 * out of the exception.
 *
 * `infra/guarded-http.ts` resolves names and applies the decision to every
 * address it connects to; here: what only connectors need (http/https only,
 * the ConnectorError of a refusal).
 */
import { CONNECTOR_EGRESS, egressRefusalMessage, type EgressPolicy } from '@af/egress';
import { ConnectorError } from './connector-error.js';

export {
  classifyAddress,
  CONNECTOR_EGRESS,
  decideEgress,
  DEFAULT_EGRESS_POLICY,
  METADATA_ADDRESSES,
  parseEgressAllowList,
  scopedKeys,
  scopeKey,
  type AddressCategory,
  type AddressClass,
  type EgressAllowEntry,
  type EgressDecision,
  type EgressPolicy,
  type EgressScope,
  type EgressTarget,
  type ParseEgressAllowListResult,
} from '@af/egress';

/** `CONNECTOR_EGRESS_ALLOW` parsed; throws one Error naming the variable and every bad entry. */
export { egressPolicyFrom } from '@af/egress';

/** Only http and https leave the service; `undefined` when `protocol` (e.g. `https:`) is one of them. */
export function schemeRefusal(protocol: string): string | undefined {
  if (protocol === 'http:' || protocol === 'https:') return undefined;
  return `the scheme "${protocol.replace(/:$/, '')}" is not allowed (only http and https)`;
}

const CONNECTOR_POLICY: EgressPolicy = { kind: CONNECTOR_EGRESS, entries: [] };

/**
 * The error for a refused destination. `host` is the URL's host (with port),
 * never the whole URL: its query string may carry an api key.
 */
export function egressRefused(host: string, reason: string, allowable: boolean): ConnectorError {
  return new ConnectorError('FAILED_PRECONDITION', egressRefusalMessage(CONNECTOR_POLICY, host, reason, allowable), { retryable: false });
}
