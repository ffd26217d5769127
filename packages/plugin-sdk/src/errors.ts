/**
 * The error a tool handler throws to answer with a specific gRPC status, and
 * the mapping both ways. The structured detail travels in the `af-error-bin`
 * trailer in the same JSON shape `@af/service-kit` uses, so connector-runtime
 * restores the code, field violations and retry-after exactly.
 */
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

export const PLUGIN_ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'FAILED_PRECONDITION',
  'RESOURCE_EXHAUSTED',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'UNIMPLEMENTED',
  'ABORTED',
  'CANCELLED',
  'INTERNAL',
] as const;
export type PluginErrorCode = (typeof PLUGIN_ERROR_CODES)[number];

/** One refused field, e.g. `{ field: 'inputs.text', reason: 'is required' }`. */
export interface FieldViolation {
  field: string;
  reason: string;
}

export interface PluginErrorOptions {
  violations?: FieldViolation[];
  /** Defaults to true for UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED and ABORTED. */
  retryable?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
}

const RETRYABLE = new Set<PluginErrorCode>([
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'RESOURCE_EXHAUSTED',
  'ABORTED',
]);

/** Throw this from a handler to choose the status the caller sees. */
export class PluginError extends Error {
  override readonly name = 'PluginError';
  readonly violations: FieldViolation[];
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(
    readonly code: PluginErrorCode,
    message: string,
    options: PluginErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.violations = options.violations ?? [];
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** INVALID_ARGUMENT about one field (`inputs.channel`, `config.webhook_url`). */
  static invalid(field: string, reason: string): PluginError {
    return new PluginError('INVALID_ARGUMENT', `${field}: ${reason}`, { violations: [{ field, reason }] });
  }

  /** The upstream is down or overloaded; the caller may retry (after `retryAfterMs` when given). */
  static unavailable(message: string, retryAfterMs?: number): PluginError {
    return new PluginError('UNAVAILABLE', message, retryAfterMs === undefined ? {} : { retryAfterMs });
  }

  /** Something the call needs is missing or unusable (e.g. the user's config). */
  static failedPrecondition(message: string, violations: FieldViolation[] = []): PluginError {
    return new PluginError('FAILED_PRECONDITION', message, { violations });
  }
}

const TO_GRPC: Record<PluginErrorCode, GrpcStatus> = {
  INVALID_ARGUMENT: GrpcStatus.INVALID_ARGUMENT,
  NOT_FOUND: GrpcStatus.NOT_FOUND,
  ALREADY_EXISTS: GrpcStatus.ALREADY_EXISTS,
  PERMISSION_DENIED: GrpcStatus.PERMISSION_DENIED,
  UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED,
  FAILED_PRECONDITION: GrpcStatus.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: GrpcStatus.RESOURCE_EXHAUSTED,
  UNAVAILABLE: GrpcStatus.UNAVAILABLE,
  DEADLINE_EXCEEDED: GrpcStatus.DEADLINE_EXCEEDED,
  UNIMPLEMENTED: GrpcStatus.UNIMPLEMENTED,
  ABORTED: GrpcStatus.ABORTED,
  CANCELLED: GrpcStatus.CANCELLED,
  INTERNAL: GrpcStatus.INTERNAL,
};
const FROM_GRPC = new Map<number, PluginErrorCode>(
  Object.entries(TO_GRPC).map(([code, status]) => [status, code as PluginErrorCode]),
);

export const ERROR_METADATA_KEY = 'af-error-bin';

interface ErrorDetail {
  code: PluginErrorCode;
  message: string;
  violations: FieldViolation[];
  retryable: boolean;
  retryAfterMs?: number;
}

/** A PluginError → what a grpc-js unary callback takes (status, message, `af-error-bin` detail). */
export function toServiceError(err: PluginError): Partial<ServiceError> {
  const detail: ErrorDetail = {
    code: err.code,
    message: err.message,
    violations: err.violations,
    retryable: err.retryable,
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
  };
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(detail), 'utf8'));
  return { code: TO_GRPC[err.code], details: err.message, message: err.message, metadata };
}

/** A grpc-js client error → PluginError, restoring the peer's structured detail when it sent one. */
export function fromServiceError(err: unknown): PluginError {
  if (err instanceof PluginError) return err;
  const e = err as { code?: unknown; details?: unknown; message?: unknown; metadata?: unknown };
  const raw = e?.metadata instanceof Metadata ? e.metadata.get(ERROR_METADATA_KEY)[0] : undefined;
  if (raw !== undefined) {
    try {
      const detail = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)) as ErrorDetail;
      if ((PLUGIN_ERROR_CODES as readonly string[]).includes(detail.code)) {
        return new PluginError(detail.code, detail.message, {
          violations: Array.isArray(detail.violations) ? detail.violations : [],
          retryable: detail.retryable,
          ...(typeof detail.retryAfterMs === 'number' ? { retryAfterMs: detail.retryAfterMs } : {}),
        });
      }
    } catch {
      // not our detail: fall back to the status code
    }
  }
  const code = typeof e?.code === 'number' ? (FROM_GRPC.get(e.code) ?? 'INTERNAL') : 'INTERNAL';
  const message =
    typeof e?.details === 'string' && e.details ? e.details : String(e?.message ?? 'unknown error');
  return new PluginError(code, message, { cause: err });
}
