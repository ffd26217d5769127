/**
 * `af er load --in records.jsonl`: load records into a running
 * entity-resolution service, which resolves each against the owner's graph
 * (auto-merge, review queue, new entity) through its `resolve_entities`
 * action, in batches. Lines are checked by the same parser as
 * `af er resolve`; bad lines are reported by number and skipped. A progress
 * bar on stderr; exit 0 when every line was loaded, 1 when some were skipped
 * or a batch was refused.
 */
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { CliIo } from '../io.js';
import { CliError } from '../io.js';
import { repoOnly } from './repo-only.js';
import type { action as actionContracts } from '@af/contracts';
import { progressBar } from './er-resolve.js';

export interface ErLoadOptions {
  in: string;
  /** entity-resolution gRPC address. */
  er: string;
  user: string;
  batch: number;
  apiKey?: string;
  gateway?: string;
  secret?: string;
}

export async function erLoad(
  opts: ErLoadOptions,
  io: CliIo,
  redraw: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<number> {
  const { parseLine } = await repoOnly(() => import('@af/entity-resolution/batch'), '@af/entity-resolution');
  const input = createReadStream(opts.in);
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new CliError(`--in ${opts.in}: no such file`) : e),
    );
  });
  const entities: Array<Record<string, unknown>> = [];
  let n = 0;
  let bad = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    n++;
    const parsed = parseLine(text, n);
    if (!parsed) continue;
    if (!parsed.ok) {
      bad++;
      io.err(`line ${parsed.line}: ${parsed.reason} (skipped)`);
      continue;
    }
    const r = parsed.record;
    entities.push({
      name: r.name,
      type: r.entityType,
      ...(r.source ? { source: r.source } : {}),
      ...(r.aliases?.length ? { aliases: r.aliases } : {}),
      ...(r.externalIds && Object.keys(r.externalIds).length ? { external_ids: r.externalIds } : {}),
      ...(r.city ? { city: r.city } : {}),
      ...(r.state ? { state: r.state } : {}),
      ...(r.employer ? { employer: r.employer } : {}),
      ...(r.title ? { title: r.title } : {}),
      source_record_index: n - 1,
    });
  }

  // gRPC and the contracts are loaded on use: `af er resolve` needs neither.
  const { action } = await import('@af/contracts');
  const { call, cliAuth, CliAuthError, createGrpcClient, AppError } = await repoOnly(() => import('@af/service-kit'), '@af/service-kit');
  let auth;
  try {
    auth = await cliAuth({
      apiKey: opts.apiKey,
      gatewayUrl: opts.gateway,
      secret: opts.secret,
      tool: 'af-er-load',
    });
  } catch (e) {
    if (e instanceof CliAuthError) throw new CliError(e.message);
    throw e;
  }
  const user = auth.via === 'api-key' && auth.userId ? auth.userId : opts.user;
  const client = createGrpcClient<actionContracts.ActionServiceClient>(
    'action',
    action.ACTION_SERVICE_NAME,
    opts.er,
    {
      auth: auth.signer,
      readyWaitMs: 10_000,
    },
  );
  const runId = `af-er-load-${randomUUID()}`;
  let loaded = 0;
  let merged = 0;
  let review = 0;
  let failed = 0;
  for (let i = 0; i < entities.length; i += opts.batch) {
    const chunk = entities.slice(i, i + opts.batch);
    const nodeId = `batch-${i / opts.batch}`;
    try {
      const res = await call(
        client.execute({
          action: 'resolve_entities',
          inputs: { entities: chunk },
          params: {},
          principal: { userId: user, teamIds: [] },
          idempotencyKey: `${runId}:${nodeId}:1`,
          runId,
          nodeId,
          attempt: 1,
          timeoutMs: 120_000,
        }),
        120_000,
      );
      const out = res.outputs as { merge_count?: number; ambiguous?: unknown[] } | undefined;
      loaded += chunk.length;
      merged += out?.merge_count ?? 0;
      review += out?.ambiguous?.length ?? 0;
    } catch (e) {
      failed += chunk.length;
      if (e instanceof AppError) {
        io.err(`records ${i + 1}-${i + chunk.length}: refused: ${e.message}`);
        for (const v of e.violations) io.err(`  ${v.field}: ${v.reason}`);
      } else io.err(`records ${i + 1}-${i + chunk.length}: ${(e as Error).message}`);
      if (!(e instanceof AppError)) break;
    }
    redraw(`\r${progressBar(loaded + failed, entities.length)}`);
  }
  redraw('\n');
  io.err(
    `${loaded} records loaded for ${user} (${merged} merged, ${review} sent to review), ${failed} refused, ${bad} bad line(s) skipped`,
  );
  return bad > 0 || failed > 0 ? 1 : 0;
}
