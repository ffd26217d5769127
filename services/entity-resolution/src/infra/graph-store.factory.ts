/**
 * The graph store of this deployment: the resolution use case over Neo4j when
 * NEO4J_URL is set, else over PostgreSQL, scoring with the model of
 * ER_MODEL_FILE when set (a file `er fit` wrote; a bad one fails the start
 * naming the file, the field and the reason).
 */
import { readFileSync } from 'node:fs';
import type { ServiceKit } from '@af/service-kit';
import { GraphResolution } from '../app/graph-resolution.js';
import type { GraphStore } from '../app/ports.js';
import type { EntityResolutionConfig } from '../config.js';
import { readModelFile } from '../domain/model-file.js';
import { DEFAULT_MODEL, type ScoringModel } from '../domain/scoring.js';
import { Neo4jGraphStore } from './neo4j/neo4j-graph-store.js';
import { PgGraphStore } from './pg-graph-store.js';

/** The model of ER_MODEL_FILE, or the shipped one when unset; throws naming the variable, the file, the field and the reason. */
export function deploymentModel(config: Pick<EntityResolutionConfig, 'ER_MODEL_FILE'>): ScoringModel {
  if (!config.ER_MODEL_FILE) return DEFAULT_MODEL;
  let text: string;
  try {
    text = readFileSync(config.ER_MODEL_FILE, 'utf8');
  } catch (err) {
    throw new Error(`ER_MODEL_FILE: cannot read ${config.ER_MODEL_FILE} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return readModelFile(text, config.ER_MODEL_FILE).model;
  } catch (err) {
    throw new Error(`ER_MODEL_FILE: ${(err as Error).message}`);
  }
}

export async function graphStore(kit: ServiceKit<EntityResolutionConfig>, config: EntityResolutionConfig): Promise<GraphStore> {
  const model = deploymentModel(config);
  if (config.ER_MODEL_FILE) kit.log.info({ modelFile: config.ER_MODEL_FILE }, 'scoring with the model of ER_MODEL_FILE');
  if (!config.NEO4J_URL) return new GraphResolution(new PgGraphStore(kit.db), model);
  const store = await Neo4jGraphStore.connect({
    url: config.NEO4J_URL,
    ...(config.NEO4J_USER ? { user: config.NEO4J_USER } : {}),
    ...(config.NEO4J_PASSWORD ? { password: config.NEO4J_PASSWORD } : {}),
    ...(config.NEO4J_DATABASE ? { database: config.NEO4J_DATABASE } : {}),
  });
  kit.onClose(() => store.close());
  return new GraphResolution(store, model);
}
