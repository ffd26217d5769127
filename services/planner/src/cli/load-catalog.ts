/**
 * `pnpm --filter @af/planner load-catalog <dir> [--planner host:port] [--user id] [--team id | --shared]`
 * Loads a catalog folder (e.g. catalogs/flex-marketing) into a running
 * planner, owned by the user (default), a team of theirs (`--team`), or —
 * `--shared`, acting as the operator `system:operator` — the shared catalog
 * every user sees. A relative <dir> is read from where pnpm was invoked (INIT_CWD).
 * Exit codes: 0 loaded, 1 invalid catalog or refused by the planner, 2 usage.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { planner } from '@af/contracts';
import { AppError, createGrpcClient } from '@af/service-kit';
import { CatalogFolderError } from '../infra/catalog-folder.js';
import { loadCatalog } from './catalog-loader.js';

const OPERATOR = 'system:operator';
const USAGE =
  'usage: load-catalog <catalog dir> [--planner host:port] [--user principal-id] [--team team-id | --shared]  (defaults: $PLANNER_URL or 127.0.0.1:50051, system:catalog; --shared loads the shared catalog as system:operator)';

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  let dir: string | undefined;
  let address = process.env.PLANNER_URL || '127.0.0.1:50051';
  let user = process.env.FLEX_CATALOG_USER || 'system:catalog';
  let userGiven = false;
  let team: string | undefined;
  let shared = false;
  while (args.length) {
    const a = args.shift()!;
    if (a === '--planner') address = args.shift() ?? '';
    else if (a === '--user') {
      user = args.shift() ?? '';
      userGiven = true;
    } else if (a === '--team') team = args.shift() ?? '';
    else if (a === '--shared') shared = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (!dir && !a.startsWith('--')) dir = a;
    else {
      process.stderr.write(`unknown argument '${a}'\n${USAGE}\n`);
      return 2;
    }
  }
  if (!dir || !address || !user || team === '') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (shared && (team !== undefined || (userGiven && user !== OPERATOR))) {
    process.stderr.write(`--shared loads the shared catalog as ${OPERATOR}: it takes neither --team nor another --user\n${USAGE}\n`);
    return 2;
  }
  // The operator's writes always go to the shared catalog.
  if (user === OPERATOR && team === undefined) shared = true;
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), dir);
  const client = createGrpcClient<planner.CapabilityRegistryServiceClient>('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, address, 10_000);
  try {
    const r = await loadCatalog(path, client, shared ? { userId: OPERATOR, shared: true } : { userId: user, ...(team ? { teamId: team } : {}) });
    const into = shared ? 'the shared catalog' : team ? `team ${team}` : `user ${user}`;
    process.stdout.write(`loaded ${r.collection} into ${into}: ${r.facets.length} facets, ${r.capabilities.length} capabilities (${r.capabilities.filter((c) => c.created).length} new), catalog revision ${r.catalogRevision}\n`);
    return 0;
  } catch (e) {
    if (e instanceof CatalogFolderError) process.stderr.write(`${e.message}\n`);
    else if (e instanceof AppError) process.stderr.write(`planner refused: ${e.message}\n${e.violations.map((v) => `  ${v.field}: ${v.reason}`).join('\n')}\n`);
    else process.stderr.write(`load-catalog failed: ${(e as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
