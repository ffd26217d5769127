/**
 * The one error type connector execution throws. Codes name what went wrong
 * with the *connector call*; `grpcStatusName` says how the service reports it.
 *
 * Messages never contain credential values: they are built from names only and
 * every message passes through `redactSecrets` before an error is constructed
 * by the executor.
 */

/** What went wrong, from the caller's point of view. */
export const CONNECTOR_ERROR_CODES = [
  /** The inputs or the definition were refused (by us, or by the upstream with 400/422). */
  'INVALID_ARGUMENT',
  /** Unknown endpoint name, or the upstream answered 404/410. */
  'NOT_FOUND',
  /** Something the call needs is missing, e.g. a credential the auth scheme requires. */
  'FAILED_PRECONDITION',
  /** The connector type or HTTP method is not executable yet. */
  'UNIMPLEMENTED',
  /** The upstream refused the stored credentials (401/403): the connector needs re-authentication. */
  'AUTH_FAILED',
  /** The upstream answered 429. `retryAfterMs` carries its Retry-After when given. */
  'RATE_LIMIT',
  /** No complete answer within the timeout (or the upstream answered 408). */
  'TIMEOUT',
  /** Network failure or 5xx. */
  'UNAVAILABLE',
  /** Any other non-2xx answer (other 4xx, unfollowed 3xx) or an oversized response. */
  'UPSTREAM_ERROR',
  /** The caller's AbortSignal fired. */
  'CANCELLED',
] as const;
export type ConnectorErrorCode = (typeof CONNECTOR_ERROR_CODES)[number];

/**
 * gRPC status (by the names `@af/service-kit` `ErrorCode` uses) for each code.
 *
 * AUTH_FAILED deliberately is not UNAUTHENTICATED: the *caller* is
 * authenticated; it is the connector's stored credential that the upstream
 * refused, and a 401 at the gateway would make a client drop its own session.
 */
export const CONNECTOR_ERROR_GRPC_STATUS = {
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  NOT_FOUND: 'NOT_FOUND',
  FAILED_PRECONDITION: 'FAILED_PRECONDITION',
  UNIMPLEMENTED: 'UNIMPLEMENTED',
  AUTH_FAILED: 'FAILED_PRECONDITION',
  RATE_LIMIT: 'RESOURCE_EXHAUSTED',
  TIMEOUT: 'DEADLINE_EXCEEDED',
  UNAVAILABLE: 'UNAVAILABLE',
  UPSTREAM_ERROR: 'FAILED_PRECONDITION',
  CANCELLED: 'CANCELLED',
} as const satisfies Record<ConnectorErrorCode, string>;
export type ConnectorErrorGrpcStatus = (typeof CONNECTOR_ERROR_GRPC_STATUS)[ConnectorErrorCode];

const RETRYABLE: ReadonlySet<ConnectorErrorCode> = new Set(['RATE_LIMIT', 'TIMEOUT', 'UNAVAILABLE']);

/** One refused field, e.g. `{ field: 'inputs.cycle', reason: 'expected an integer' }`. */
export interface ConnectorFieldViolation {
  field: string;
  reason: string;
}

export interface ConnectorErrorOptions {
  /** Overrides the default (RATE_LIMIT, TIMEOUT, UNAVAILABLE are retryable). */
  retryable?: boolean;
  /** The upstream HTTP status, when there was an answer. */
  status?: number;
  retryAfterMs?: number;
  violations?: ConnectorFieldViolation[];
}

/** A failed connector call. Safe to log and to return to callers. */
export class ConnectorError extends Error {
  override readonly name = 'ConnectorError';
  readonly retryable: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly violations: ConnectorFieldViolation[];

  constructor(
    readonly code: ConnectorErrorCode,
    message: string,
    options: ConnectorErrorOptions = {},
  ) {
    super(message);
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    this.violations = options.violations ?? [];
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** The gRPC status name the service answers with. */
  get grpcStatusName(): ConnectorErrorGrpcStatus {
    return CONNECTOR_ERROR_GRPC_STATUS[this.code];
  }

  /** An INVALID_ARGUMENT error about one field. */
  static invalid(field: string, reason: string): ConnectorError {
    return new ConnectorError('INVALID_ARGUMENT', `${field}: ${reason}`, { violations: [{ field, reason }] });
  }
}
