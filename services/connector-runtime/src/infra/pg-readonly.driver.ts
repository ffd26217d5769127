/**
 * Loads `pg` for `pg-readonly.ts` and types the small part of it used there.
 *
 * This package has no `@types/pg` (only `pg`), so a static `import 'pg'`
 * does not type-check; the module is loaded by name instead and described by
 * the interfaces below. With `@types/pg` added as a devDependency this file
 * can become a plain `import pg from 'pg'`.
 */

export interface PgPoolConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  ssl?: false | { rejectUnauthorized: boolean };
  max: number;
  idleTimeoutMillis: number;
  connectionTimeoutMillis: number;
  allowExitOnIdle: boolean;
  keepAlive: boolean;
  application_name: string;
}

export interface PgPoolClient {
  query(text: string): Promise<unknown>;
  query(text: string, values: readonly unknown[]): Promise<{ rows: unknown[] }>;
  /** A submittable (object with `submit`), e.g. a `pg.Query`; results go to its callback. */
  query(submittable: object): unknown;
  on(event: 'error', listener: (err: Error) => void): void;
  removeListener(event: 'error', listener: (err: Error) => void): void;
  /** Back to the pool; `true` or an Error destroys the connection instead. */
  release(destroy?: boolean | Error): void;
}

export interface PgPool {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error & { code?: string }) => void): void;
  readonly totalCount: number;
}

/** The protocol hooks of `pg.Query` that a subclass may override. */
export declare class PgQuery {
  constructor(config: object);
  handlePortalSuspended(connection: { sync(): void }): void;
  handleCommandComplete(msg: unknown, connection: { sync(): void }): void;
  handleEmptyQuery(connection: { sync(): void }): void;
  handleError(err: unknown, connection: { sync(): void }): void;
}

export interface PgModule {
  Pool: new (config: PgPoolConfig) => PgPool;
  Query: typeof PgQuery;
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}

let loaded: Promise<PgModule> | undefined;

/** The `pg` module (loaded once). */
export function loadPg(): Promise<PgModule> {
  const name = 'pg';
  loaded ??= (import(name) as Promise<{ default?: PgModule } & PgModule>).then((m) => m.default ?? m);
  return loaded;
}
