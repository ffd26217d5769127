/** save_to_workspace: rows into a workspace table (created from the rows' shape when allowed), with upsert. */
import { AppError, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import { identifierProblem } from '../../domain/identifiers.js';
import { rowsOf } from '../../domain/render.js';
import { inferColumns } from '../../domain/table-schema.js';
import { invalid, parse } from '../parse.js';
import { actionKey, type ActionDeps } from './context.js';

const ident = z.string().superRefine((v, ctx) => {
  const bad = identifierProblem(v);
  if (bad) ctx.addIssue({ code: 'custom', message: bad });
});

export function tableActions(d: ActionDeps): ActionHandler[] {
  const save: ActionHandler = {
    name: 'save_to_workspace',
    sideEffects: true,
    async execute(ctx) {
      const p = parse(
        z.object({
          table_name: ident,
          workspace_id: ident.default('default'),
          create_if_missing: z.boolean().default(true),
          upsert_key: z.string().optional(),
          source: z.string().max(500).optional(),
          query: z.string().max(2000).optional(),
        }),
        ctx.params,
        'params',
      );
      if (ctx.inputs.data === undefined || ctx.inputs.data === null)
        throw AppError.invalid('inputs.data', 'is required');
      const rows = rowsOf(ctx.inputs.data);
      if (rows.length > d.limits.maxTableRows)
        throw AppError.invalid(
          'inputs.data',
          `has ${rows.length} rows; the limit is ${d.limits.maxTableRows}`,
        );
      const { columns, problems } = inferColumns(rows, 'inputs.data');
      if (problems.length) throw invalid(problems);
      if (!columns.length) throw AppError.invalid('inputs.data', 'has no columns to save');
      if (p.upsert_key !== undefined && !columns.some((c) => c.name === p.upsert_key))
        throw AppError.invalid(
          'params.upsert_key',
          `${JSON.stringify(p.upsert_key)} is not a field of the data`,
        );
      const owner = ctx.principal.userId;
      const { details } = await d.deliveries.once(
        actionKey(ctx),
        owner,
        'data_workspace_table',
        async (q) => {
          const r = await d.tables.write(
            {
              owner,
              workspaceId: p.workspace_id,
              tableName: p.table_name,
              columns,
              rows,
              createIfMissing: p.create_if_missing,
              ...(p.upsert_key ? { upsertKey: p.upsert_key } : {}),
              source: p.source ?? (ctx.runId ? `run:${ctx.runId}` : 'api'),
              ...(p.query ? { query: p.query } : {}),
              field: 'inputs.data',
            },
            q,
          );
          return { rows_inserted: r.inserted, rows_updated: r.updated, rows_skipped: r.skipped };
        },
      );
      return { ...details, table_name: p.table_name, workspace_id: p.workspace_id };
    },
  };
  return [save];
}
