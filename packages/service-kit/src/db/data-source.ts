/**
 * One TypeORM DataSource per service, confined to the service's own schema
 * (search_path), with its migrations run on start under an advisory lock so
 * replicas starting together do not race.
 */
import { DataSource, type MigrationInterface, type MixedList, type EntitySchema } from 'typeorm';

export interface DatabaseOptions {
  url: string;
  /** The service's schema, e.g. `orchestrator`. */
  schema: string;
  entities?: MixedList<Function | string | EntitySchema>;
  migrations: Array<new () => MigrationInterface>;
  poolSize?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  if (!SCHEMA_NAME.test(options.schema)) throw new Error(`invalid schema name ${JSON.stringify(options.schema)}`);
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities ?? [],
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    logging: false,
    poolSize: options.poolSize ?? 10,
    extra: { options: `-c search_path=${options.schema},public`, application_name: `af-${options.schema}` },
  });
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${options.schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${options.schema}`]).catch(() => undefined);
    await runner.release();
  }
  return dataSource;
}
