/**
 * Typed configuration from the environment, parsed once at start-up. A bad or
 * missing variable fails fast with its name and the reason; values are never
 * echoed, since some are secrets.
 */
import { hostname } from 'node:os';
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: Array<{ variable: string; reason: string }>) {
    super(`invalid configuration: ${problems.map((p) => `${p.variable}: ${p.reason}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parse `env` with a schema whose keys are variable names. */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    raw[key] = value === '' ? undefined : value;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => ({
      variable: String(issue.path[0] ?? '(root)'),
      reason: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
    })),
  );
}

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a URL with scheme ${protocols.map((p) => p.replace(':', '://')).join(' or ')}`);

/** A `host:port` address of a gRPC peer. */
export const grpcAddress = () =>
  z.string().regex(/^[A-Za-z0-9_.-]+:\d{1,5}$/, 'must be host:port, e.g. planner:50051');

/** Variables every service reads. Services extend this with their own. */
export const baseEnvSchema = z.object({
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** PostgreSQL connection URL; each service uses its own schema inside it. */
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  /** NATS server URL (JetStream enabled); `memory://` selects the in-process bus of the embedded dev mode. */
  NATS_URL: url(['nats:', 'tls:', 'memory:']),
  /** Prefix for subjects and stream names, isolating test runs sharing one server. */
  NATS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]*$/, 'only lower-case letters, digits and _')
    .default(''),
  GRPC_HOST: z.string().default('0.0.0.0'),
  /** gRPC listen port; 0 picks a free one. */
  GRPC_PORT: port(50051),
  /** Prometheus /metrics port; 0 picks a free one, -1 is not allowed. */
  METRICS_PORT: port(9464),
  /**
   * Shared secret (>= 32 characters) that signs and verifies the principal
   * tokens on every gRPC call between services (docs/security/service-auth.md).
   */
  SERVICE_AUTH_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** A second secret accepted when verifying (never used to sign), for rotating SERVICE_AUTH_SECRET. */
  SERVICE_AUTH_SECRET_PREVIOUS: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Lifetime of the principal tokens this service mints for its own calls. */
  SERVICE_AUTH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(60),
  /** Identifies this replica in leases and logs. */
  SERVICE_INSTANCE_ID: z.string().min(1).default(`${hostname()}-${process.pid}`),
});
export type BaseEnv = z.infer<typeof baseEnvSchema>;

export { url as urlSchema, port as portSchema };
