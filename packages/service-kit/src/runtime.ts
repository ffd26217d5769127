/**
 * What every service starts with: typed config, pino logger, its Postgres
 * schema (migrated), the event bus, the outbox relay and /metrics — so a
 * service's own code is only its domain.
 */
import type { DataSource, EntityManager, MigrationInterface } from 'typeorm';
import type { z } from 'zod';
import { ConfigError, loadConfig, type BaseEnv } from './config.js';
import { openDatabase } from './db/data-source.js';
import type { EventBus } from './events/bus.js';
import { connectBus } from './events/index.js';
import { Subjects } from './events/subjects.js';
import { createLogger, type Logger } from './logger.js';
import { Metrics } from './metrics.js';
import { OutboxRelay, type OutboxMessage, type OutboxRow } from './outbox/outbox-relay.js';
import { appendOutbox, PgOutboxStore } from './outbox/pg-outbox-store.js';

export interface ServiceKitOptions<S extends z.ZodObject> {
  /** Service name, e.g. `connector-runtime`; its schema is the name with `_`. */
  name: string;
  envSchema: S;
  env?: NodeJS.ProcessEnv;
  migrations: Array<new () => MigrationInterface>;
  entities?: Function[];
}

type Closer = () => Promise<void> | void;

export class ServiceKit<C extends BaseEnv = BaseEnv> {
  readonly subjects: Subjects;
  readonly relay: OutboxRelay;
  readonly metrics: Metrics;
  private readonly closers: Closer[] = [];
  metricsPort = 0;

  private constructor(
    readonly name: string,
    readonly config: C,
    readonly log: Logger,
    readonly db: DataSource,
    readonly bus: EventBus,
    subjects: Subjects,
    readonly schema: string,
  ) {
    this.subjects = subjects;
    this.metrics = new Metrics(name);
    this.relay = new OutboxRelay(new PgOutboxStore(db, schema), bus, log);
  }

  static async start<S extends z.ZodObject>(options: ServiceKitOptions<S>): Promise<ServiceKit<z.infer<S> & BaseEnv>> {
    const config = loadConfig(options.envSchema, options.env) as z.infer<S> & BaseEnv;
    const log = createLogger(options.name, config.LOG_LEVEL);
    const schema = options.name.replace(/-/g, '_');
    const db = await openDatabase({
      url: config.DATABASE_URL,
      schema,
      migrations: options.migrations,
      entities: options.entities ?? [],
    });
    const subjects = new Subjects(config.NATS_PREFIX);
    let bus: EventBus;
    try {
      bus = await connectBus(config.NATS_URL, subjects, log);
    } catch (err) {
      await db.destroy();
      throw err;
    }
    const kit = new ServiceKit(options.name, config, log, db, bus, subjects, schema);
    kit.relay.start();
    kit.metricsPort = await kit.metrics.listen(config.GRPC_HOST, config.METRICS_PORT);
    log.info({ schema, natsPrefix: config.NATS_PREFIX, metricsPort: kit.metricsPort }, 'service kit ready');
    return kit;
  }

  /**
   * Run `fn` in one transaction; messages it emits are written to the outbox
   * in the same transaction and published after commit (by this process at
   * once, the outbox relay being the fallback).
   */
  async transaction<T>(fn: (m: EntityManager, emit: (...msgs: OutboxMessage[]) => void) => Promise<T>): Promise<T> {
    const pending: OutboxMessage[] = [];
    let rows: OutboxRow[] = [];
    const result = await this.db.transaction(async (m) => {
      const value = await fn(m, (...msgs) => pending.push(...msgs));
      rows = await appendOutbox(m, pending);
      return value;
    });
    this.relay.publishCommitted(rows);
    return result;
  }

  /** Register cleanup run (in reverse order) by close(). */
  onClose(fn: Closer): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.closers.reverse()) {
      try {
        await fn();
      } catch (err) {
        this.log.warn({ err }, 'error during shutdown');
      }
    }
    await this.relay.stop();
    await this.relay.drain().catch((err) => this.log.warn({ err }, 'outbox not fully drained at shutdown'));
    await this.bus.close();
    await this.db.destroy();
    await this.metrics.close();
    this.log.info('stopped');
  }
}

/**
 * Entry point helper: start, stop cleanly on SIGINT/SIGTERM, and print a
 * configuration error as one clear line instead of a stack trace.
 */
export function runMain(name: string, start: () => Promise<{ close(): Promise<void> }>): void {
  let running: { close(): Promise<void> } | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await running?.close();
    process.stderr.write(`${name}: stopped (${signal})\n`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  start()
    .then((r) => {
      running = r;
    })
    .catch((err: unknown) => {
      if (err instanceof ConfigError) process.stderr.write(`${name}: ${err.message}\n`);
      else process.stderr.write(`${name}: failed to start: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    });
}
