// What each service reads from its environment — the deployment-side mirror of
// services/<name>/src/config.ts. Used by k8s/validate.mjs and deploy/lint.mjs
// to prove every manifest gives every service what it needs. When a config.ts
// gains or drops a variable, change this table in the same commit.

const COMMON_REQUIRED = ['LOG_LEVEL', 'DATABASE_URL', 'NATS_URL', 'GRPC_PORT', 'METRICS_PORT', 'SERVICE_AUTH_SECRET'];
const COMMON_OPTIONAL = ['NATS_PREFIX', 'SERVICE_INSTANCE_ID', 'GRPC_HOST', 'SERVICE_AUTH_SECRET_PREVIOUS', 'SERVICE_AUTH_TOKEN_TTL_SECONDS'];
/** Secrets every service reads (principal tokens are signed with SERVICE_AUTH_SECRET). */
const COMMON_SECRET = ['DATABASE_URL', 'SERVICE_AUTH_SECRET', 'SERVICE_AUTH_SECRET_PREVIOUS'];
const LLM_OPTIONAL = ['LLM_PROVIDER', 'LLM_MODEL', 'LLM_API_KEY', 'LLM_BASE_URL', 'LLM_SCRIPT', 'LLM_TEMPERATURE', 'LLM_MAX_TOKENS', 'LLM_TIMEOUT_MS', 'LLM_MAX_RETRIES'];

/**
 * @typedef {object} ServiceEnv
 * @property {string[]} required variables the manifests must set (those with
 *   defaults are required too, so ports and URLs are stated, never implied)
 * @property {string[]} optional variables the service reads when present
 * @property {string[]} secret variables that must come from a Secret, never a literal or ConfigMap
 * @property {Record<string, string>} ports port variable -> the named containerPort it must equal
 * @property {Record<string, string>} targets host:port variable -> the service it must point at
 * @property {boolean} http whether the service has the HTTP surface
 */

/** @type {Record<string, ServiceEnv>} */
export const SERVICE_ENV = {
  gateway: {
    required: [
      ...COMMON_REQUIRED,
      'HTTP_PORT',
      'JWT_SECRET',
      'JWT_TTL_SECONDS',
      'PLANNER_URL',
      'ORCHESTRATOR_URL',
      'CONNECTOR_RUNTIME_URL',
      'APPROVAL_URL',
    ],
    optional: [
      ...COMMON_OPTIONAL,
      'HTTP_HOST',
      'BODY_LIMIT_BYTES',
      'OUTPUT_ROUTER_URL',
      'ENTITY_RESOLUTION_URL',
      // open | invite | closed: who may create an account.
      'SIGNUP',
      'INVITE_TTL_HOURS',
      'STREAM_TOKEN_TTL_SECONDS',
      'TRUST_PROXY',
      'CORS_ORIGINS',
      // The gateway's public address; OAuth connection callbacks are built from it.
      'PUBLIC_URL',
      'SERVICE_TOKEN_TTL_SECONDS',
      'LOGIN_ACCOUNT_FREE_FAILURES',
      'LOGIN_ADDRESS_FREE_FAILURES',
      'LOGIN_BACKOFF_BASE_MS',
      'LOGIN_BACKOFF_MAX_SECONDS',
      'LOGIN_FAILURES_RESET_SECONDS',
      'LOGIN_REJECT_DELAY_MS',
      'PASSWORD_HASH_WORKERS',
      'PASSWORD_HASH_NICE',
      'PASSWORD_HASH_QUEUE',
      'PASSWORD_HASH_PER_ADDRESS',
      'PASSWORD_BCRYPT_ROUNDS',
      'COMMON_PASSWORDS_FILE',
      'RUN_INPUT_MAX_BYTES',
      'JSON_MAX_DEPTH',
      'SSE_IDLE_RECHECK_MS',
      // Directory of the built console served at / (default: packages/console/dist of the checkout).
      'CONSOLE_DIR',
    ],
    secret: [...COMMON_SECRET, 'JWT_SECRET'],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics', HTTP_PORT: 'http' },
    targets: {
      PLANNER_URL: 'planner',
      ORCHESTRATOR_URL: 'orchestrator',
      CONNECTOR_RUNTIME_URL: 'connector-runtime',
      APPROVAL_URL: 'approval',
      OUTPUT_ROUTER_URL: 'output-router',
    },
    http: true,
  },
  planner: {
    // CONNECTOR_RUNTIME_URL: validation checks a playbook's connectors against the caller's.
    // ORCHESTRATOR_URL: agent runs are journaled when they end, read back from the orchestrator.
    required: [...COMMON_REQUIRED, 'CONNECTOR_RUNTIME_URL', 'ORCHESTRATOR_URL'],
    optional: [...COMMON_OPTIONAL, 'CAPABILITY_EGRESS_ALLOW', 'ACTION_SERVICES', 'ACTION_REFRESH_MS', 'AGENT_JOURNAL_SWEEP_MS', ...LLM_OPTIONAL],
    secret: [...COMMON_SECRET, 'LLM_API_KEY'],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics' },
    targets: { CONNECTOR_RUNTIME_URL: 'connector-runtime', ORCHESTRATOR_URL: 'orchestrator' },
    http: false,
  },
  orchestrator: {
    required: [...COMMON_REQUIRED, 'CONNECTOR_RUNTIME_URL', 'PLANNER_URL', 'APPROVAL_URL', 'RUN_LEASE_MS', 'RUN_CONCURRENCY'],
    optional: [
      ...COMMON_OPTIONAL,
      'RUNS_IN_FLIGHT',
      'NODE_TIMEOUT_MS',
      'NODE_OUTPUT_RETENTION_HOURS',
      'CONNECTOR_CONCURRENCY',
      'CONNECTOR_CONCURRENCY_OVERRIDES',
      'MAP_MAX_ITERATIONS',
      'SUBFLOW_MAX_DEPTH',
      'APPROVAL_RECONCILE_MS',
      'CAPABILITY_EGRESS_ALLOW',
      'ACTION_SERVICES',
      'ACTION_REFRESH_MS',
      ...LLM_OPTIONAL,
    ],
    secret: [...COMMON_SECRET, 'LLM_API_KEY'],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics' },
    targets: { PLANNER_URL: 'planner', CONNECTOR_RUNTIME_URL: 'connector-runtime', APPROVAL_URL: 'approval' },
    http: false,
  },
  approval: {
    required: [...COMMON_REQUIRED, 'ORCHESTRATOR_URL'],
    optional: [
      ...COMMON_OPTIONAL,
      'APPROVAL_SWEEP_INTERVAL_MS',
      'APPROVAL_STALE_CHECK_MS',
      'HITL_TIMEOUT_SECONDS',
      'FLEX_HUMAN_ASSIGNMENT_TIMEOUT_SECONDS',
      'HITL_CLASSIFIER_TIMEOUT_MS',
      ...LLM_OPTIONAL,
    ],
    secret: [...COMMON_SECRET, 'LLM_API_KEY'],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics' },
    targets: { ORCHESTRATOR_URL: 'orchestrator' },
    http: false,
  },
  'output-router': {
    required: [...COMMON_REQUIRED],
    optional: [
      ...COMMON_OPTIONAL,
      'OUTPUT_MAX_FILE_BYTES',
      'OUTPUT_MAX_TABLE_ROWS',
      'OUTPUT_EXPORT_TTL_SECONDS',
      'OUTPUT_EGRESS_ALLOW',
      'OUTPUT_WEBHOOK_ATTEMPTS',
      'OUTPUT_WEBHOOK_BACKOFF_MS',
      'OUTPUT_WEBHOOK_TIMEOUT_MS',
      'OUTPUT_BLOB_STORE',
      'S3_ENDPOINT',
      'S3_REGION',
      'S3_BUCKET',
      'S3_PREFIX',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'S3_FORCE_PATH_STYLE',
      // Email notifications (off without SMTP_URL, which may hold credentials: a Secret).
      'SMTP_URL',
      'SMTP_FROM',
      'SMTP_TIMEOUT_MS',
      // Channel messages through connector-runtime's plugin tools; knowledge-graph writes to entity-resolution.
      'CONNECTOR_RUNTIME_URL',
      'OUTPUT_CHANNEL_PLUGINS',
      'ENTITY_RESOLUTION_URL',
      'OUTPUT_GRAPH_RETRY_MS',
      'OUTPUT_GRAPH_RETRY_ATTEMPTS',
      'OUTPUT_RUN_LINK_BASE',
    ],
    secret: [...COMMON_SECRET, 'S3_SECRET_ACCESS_KEY', 'SMTP_URL'],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics' },
    targets: { CONNECTOR_RUNTIME_URL: 'connector-runtime', ENTITY_RESOLUTION_URL: 'entity-resolution' },
    http: false,
  },
  'entity-resolution': {
    required: [...COMMON_REQUIRED],
    optional: [...COMMON_OPTIONAL, 'ER_AUTO_THRESHOLD', 'ER_REVIEW_THRESHOLD', 'ER_MAX_ANALYZE_NODES'],
    secret: [...COMMON_SECRET],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics' },
    targets: {},
    http: false,
  },
  'connector-runtime': {
    required: [...COMMON_REQUIRED, 'CREDENTIALS_KEYS'],
    optional: [
      ...COMMON_OPTIONAL,
      'IDEMPOTENCY_WINDOW_MS',
      'CONNECTOR_EGRESS_ALLOW',
      'CONNECTOR_FILE_ROOT',
      'BREAKER_FAILURE_THRESHOLD',
      'BREAKER_RECOVERY_MS',
      'BREAKER_SYNC_MS',
      'RATE_LIMIT_LEASE_MS',
      'RATE_LIMIT_MAX_WAIT_MS',
      'PLUGIN_REGISTRATION_TOKEN',
      'PLUGIN_REGISTRATION_OPEN',
      'PLUGIN_HEARTBEAT_SECONDS',
    ],
    secret: [...COMMON_SECRET, 'CREDENTIALS_KEYS', 'PLUGIN_REGISTRATION_TOKEN'],
    ports: { GRPC_PORT: 'grpc', METRICS_PORT: 'metrics' },
    targets: {},
    http: false,
  },
};

/** Variables any Node process may legitimately be given besides the service's own. */
export const RUNTIME_ENV = ['NODE_ENV', 'NODE_OPTIONS', 'TZ'];

/**
 * Every variable name some service reads (for catching misspelled shared keys).
 * @returns {Set<string>}
 */
export function knownVariables() {
  const all = new Set(RUNTIME_ENV);
  for (const s of Object.values(SERVICE_ENV)) for (const v of [...s.required, ...s.optional]) all.add(v);
  return all;
}

/**
 * Parses "host:port" (optionally "dns:///host:port") into its parts, or undefined.
 * The host may be a bare Service name or "<name>.<namespace>[.svc[.cluster.local]]".
 * @param {string} value
 * @returns {{service: string, namespace?: string, port: number} | undefined}
 */
export function parseServiceAddress(value) {
  const m =
    /^(?:dns:\/\/\/)?([a-z0-9-]+)(?:\.([a-z0-9-]+)(?:\.svc(?:\.cluster\.local)?)?)?:([0-9]{1,5})$/.exec(
      String(value),
    );
  return m ? { service: m[1], namespace: m[2], port: Number(m[3]) } : undefined;
}
