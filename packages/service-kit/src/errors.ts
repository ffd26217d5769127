/**
 * One error type for the whole system. Domain code throws AppError with a
 * code; the gRPC filter turns it into a status with a structured detail in the
 * `af-error-bin` trailer; the gateway turns that back into HTTP.
 */
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { scrubAddresses } from './addresses.js';
import { boundViolations, fitDetail, MAX_ERROR_MESSAGE, truncateText } from './error-bounds.js';

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'FAILED_PRECONDITION',
  'RESOURCE_EXHAUSTED',
  /** A request, or a message between services, over a size limit (HTTP 413). */
  'PAYLOAD_TOO_LARGE',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'UNIMPLEMENTED',
  'ABORTED',
  'CANCELLED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldViolation {
  /** Dotted path, e.g. `steps[1].inputs.query`. */
  field: string;
  reason: string;
  /** Machine-readable reason code, e.g. `unresolved_reference`. */
  code?: string;
  /** The corrected value of `field` a client may apply as it is (`{filings.results}`). */
  suggestedFix?: string;
  /** 1-based position of the offending node when the request carried YAML text. */
  line?: number;
  column?: number;
  /** The playbook step the violation is about. */
  step?: string;
}

export interface AppErrorOptions {
  violations?: FieldViolation[];
  retryable?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
  /**
   * The error came from the transport, not from a peer's code (the peer sent
   * no error detail): its message may name internal addresses and must not
   * reach an outside caller as it is.
   */
  transport?: boolean;
}

export class AppError extends Error {
  readonly violations: FieldViolation[];
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly transport: boolean;

  /** The message is cut to 1,000 characters and the violations to 100 (see error-bounds.ts). */
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(truncateText(String(message), MAX_ERROR_MESSAGE), { cause: options.cause });
    this.name = 'AppError';
    this.violations = options.violations ? boundViolations(options.violations) : [];
    this.transport = options.transport ?? false;
    this.retryable = options.retryable ?? DEFAULT_RETRYABLE.has(code);
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  static invalid(field: string, reason: string, code?: string): AppError {
    return new AppError('INVALID_ARGUMENT', `${field}: ${reason}`, {
      violations: [{ field, reason, ...(code ? { code } : {}) }],
    });
  }

  static notFound(what: string, id: string): AppError {
    return new AppError('NOT_FOUND', `${what} ${id} not found`);
  }

  /** Plain-data view for transports. */
  toDetail(): ErrorDetail {
    return {
      code: this.code,
      message: this.message,
      violations: this.violations,
      retryable: this.retryable,
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
    };
  }
}

export interface ErrorDetail {
  code: ErrorCode;
  message: string;
  violations: FieldViolation[];
  retryable: boolean;
  retryAfterMs?: number;
}

const DEFAULT_RETRYABLE = new Set<ErrorCode>(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED']);

const TO_GRPC: Record<ErrorCode, GrpcStatus> = {
  INVALID_ARGUMENT: GrpcStatus.INVALID_ARGUMENT,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  ALREADY_EXISTS: GrpcStatus.ALREADY_EXISTS,
  PERMISSION_DENIED: GrpcStatus.PERMISSION_DENIED,
  UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED,
  FAILED_PRECONDITION: GrpcStatus.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: GrpcStatus.RESOURCE_EXHAUSTED,
  PAYLOAD_TOO_LARGE: GrpcStatus.RESOURCE_EXHAUSTED,
  UNAVAILABLE: GrpcStatus.UNAVAILABLE,
  DEADLINE_EXCEEDED: GrpcStatus.DEADLINE_EXCEEDED,
  UNIMPLEMENTED: GrpcStatus.UNIMPLEMENTED,
  ABORTED: GrpcStatus.ABORTED,
  CANCELLED: GrpcStatus.CANCELLED,
  INTERNAL: GrpcStatus.INTERNAL,
};

// PAYLOAD_TOO_LARGE shares RESOURCE_EXHAUSTED on the wire; the af-error-bin detail (or the message-size text) tells them apart.
const FROM_GRPC = new Map<number, ErrorCode>(
  Object.entries(TO_GRPC)
    .filter(([code]) => code !== 'PAYLOAD_TOO_LARGE')
    .map(([code, status]) => [status, code as ErrorCode]),
);

/** HTTP status the gateway answers with for each code (DESIGN §3). */
const TO_HTTP: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  PAYLOAD_TOO_LARGE: 413,
  CANCELLED: 499,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

export const ERROR_METADATA_KEY = 'af-error-bin';

export interface GrpcErrorShape {
  code: GrpcStatus;
  message: string;
  details: string;
  metadata: Metadata;
}

/**
 * Any thrown value → a gRPC error grpc-js understands. Unknown errors become
 * INTERNAL with a generic message so internals do not leak to callers.
 */
export function toGrpcError(err: unknown): GrpcErrorShape {
  const app = err instanceof AppError ? err : new AppError('INTERNAL', 'internal error', { cause: err });
  const metadata = new Metadata();
  // Bounded so the trailer always fits the peer's HTTP/2 header-list limit (a rejected trailer drops the connection).
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(fitDetail(app.toDetail())), 'utf8'));
  return { code: TO_GRPC[app.code], message: app.message, details: app.message, metadata };
}

/** A gRPC client error → AppError, restoring the structured detail when the peer sent one. */
export function fromGrpcError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { code?: unknown; details?: unknown; message?: unknown; metadata?: Metadata };
  const raw = e?.metadata instanceof Metadata ? e.metadata.get(ERROR_METADATA_KEY)[0] : undefined;
  if (raw !== undefined) {
    try {
      const detail = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)) as ErrorDetail;
      if (ERROR_CODES.includes(detail.code)) {
        return new AppError(detail.code, detail.message, {
          violations: detail.violations ?? [],
          retryable: detail.retryable,
          ...(detail.retryAfterMs !== undefined ? { retryAfterMs: detail.retryAfterMs } : {}),
        });
      }
    } catch {
      // fall through to the status code
    }
  }
  const code = typeof e?.code === 'number' ? (FROM_GRPC.get(e.code) ?? 'INTERNAL') : 'INTERNAL';
  const message = typeof e?.details === 'string' && e.details ? e.details : String(e?.message ?? 'unknown error');
  const size = code === 'RESOURCE_EXHAUSTED' ? MESSAGE_SIZE.exec(message) : null;
  if (size) {
    return new AppError('PAYLOAD_TOO_LARGE', `a message between services is too large (${size[1]} bytes; the limit is ${size[2]})`, { cause: err, transport: true });
  }
  // The raw text (kept in `cause` for logs) names internal addresses; whoever shows this message must not.
  return new AppError(code, scrubAddresses(message), { cause: err, transport: true });
}

/** grpc-js: `Received message larger than max (1900000 vs 1048576)` / `Sent message larger than max (…)`. */
const MESSAGE_SIZE = /message larger than max \((\d+) vs\.? (\d+)\)/i;

export function httpStatusOf(code: ErrorCode): number {
  return TO_HTTP[code];
}

export function grpcStatusOf(code: ErrorCode): GrpcStatus {
  return TO_GRPC[code];
}
