/**
 * @af/egress — which network destinations the platform may dial on a user's
 * behalf (SSRF guard), shared by connector-runtime (connector HTTP and
 * database hosts), the planner (capability registrations) and the
 * orchestrator (capability agent calls). Pure: callers resolve names and
 * open sockets; this package classifies addresses, parses the operators'
 * allow-lists and decides.
 */
export { classifyAddress, METADATA_ADDRESSES, type AddressCategory, type AddressClass } from './address.js';
export {
  CAPABILITY_EGRESS,
  CONNECTOR_EGRESS,
  DEFAULT_EGRESS_POLICY,
  egressPolicyFrom,
  parseEgressAllowList,
  scopedKeys,
  scopeKey,
  type AllowListKind,
  type EgressAllowEntry,
  type EgressPolicy,
  type EgressScope,
  type ParseEgressAllowListResult,
} from './allow-list.js';
export { decideEgress, egressRefusalMessage, type EgressDecision, type EgressTarget } from './decision.js';
export { endpointRefusal, formatHostPort, parseGrpcTarget, type GrpcTarget, type ParseGrpcTargetResult } from './grpc-target.js';
