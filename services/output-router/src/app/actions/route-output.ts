/**
 * route_output: one result to many destinations, each independent (one
 * failing never stops the next) and delivered once per
 * `runId:nodeId:<index>-<type>` (see infra/delivery-log.ts). The answer has
 * a routing report: every destination's status and details.
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type ActionContext, type ActionHandler } from '@af/service-kit';
import { compileCondition } from '@af/expr';
import { deliveryKey, parseDestinations, type ParsedDestination } from '../../domain/destinations.js';
import { CONTENT_TYPES, EXTENSIONS, isSectioned, render, renderFilename, rowsOf, scalarsOf, type Format, type TextFormat } from '../../domain/render.js';
import { inferColumns } from '../../domain/table-schema.js';
import { renderXlsx } from '../../domain/xlsx.js';
import type { Folder } from '../../domain/workspace.js';
import type { ChannelSender } from '../../infra/channel-sender.js';
import type { EmailSender } from '../../infra/email-sender.js';
import type { GraphWriter } from '../../infra/graph-writer.js';
import { recordsToEntities } from '../../domain/graph-entities.js';
import type { WebhookSender } from '../../infra/webhook-sender.js';
import { invalid } from '../parse.js';
import { originOf, type ActionDeps } from './context.js';

export interface RouteEntry {
  destination: string;
  index: number;
  /** `queued`: not delivered yet, retried in the background (knowledge-graph writes). */
  status: 'success' | 'error' | 'skipped' | 'queued';
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
  replayed?: boolean;
}

/** Senders outside the database a destination may use. */
export interface RouteSenders {
  webhooks: WebhookSender;
  email: EmailSender;
  channels: ChannelSender;
  graph: GraphWriter;
}

/** Not delivered now, queued for retries (a knowledge-graph write while entity-resolution is down). */
class QueuedDelivery extends Error {
  constructor(readonly details: Record<string, unknown>) {
    super('queued for retry');
  }
}

/** Some of a destination's deliveries were made (`details`), others failed (`message`). */
class PartialDelivery extends AppError {
  constructor(
    readonly details: Record<string, unknown>,
    message: string,
  ) {
    super('UNAVAILABLE', message);
  }
}

export function routeOutputAction(d: ActionDeps & RouteSenders): ActionHandler {
  return {
    name: 'route_output',
    sideEffects: true,
    async execute(ctx) {
      if (ctx.inputs.data === undefined) throw AppError.invalid('inputs.data', 'is required');
      const { destinations, problems } = parseDestinations(ctx.params.destinations, 'params.destinations');
      if (problems.length) throw invalid(problems);
      const report: RouteEntry[] = [];
      const summary = summaryEntry(ctx.params.summary, ctx.inputs.summary);
      if (summary) report.push(summary);
      let chat: string | undefined;
      for (const [index, dest] of destinations.entries()) {
        const at = `params.destinations[${index}]`;
        try {
          if (
            dest.condition !== undefined &&
            !conditionHolds(dest.condition, ctx.inputs.data, `${at}.condition`)
          ) {
            report.push({
              destination: dest.type,
              index,
              status: 'skipped',
              details: { reason: 'condition is false' },
            });
            continue;
          }
          const { details, replayed } = await deliver(d, ctx, dest, index);
          if (dest.type === 'chat') chat = String(details.content ?? '');
          report.push({
            destination: dest.type,
            index,
            status: 'success',
            details,
            ...(replayed ? { replayed } : {}),
          });
        } catch (err) {
          if (err instanceof QueuedDelivery) {
            report.push({ destination: dest.type, index, status: 'queued', details: err.details });
            continue;
          }
          const e = err instanceof AppError ? err : new AppError('INTERNAL', (err as Error).message);
          report.push({
            destination: dest.type,
            index,
            status: 'error',
            ...(err instanceof PartialDelivery && Object.keys(err.details).length ? { details: err.details } : {}),
            error: { code: e.code, message: e.message },
          });
        }
      }
      const routed = report.filter((r) => r.status === 'success').map((r) => r.destination);
      return {
        routed_to: routed,
        success: report.every((r) => r.status !== 'error' && r.status !== 'queued'),
        routing_report: report,
        ...(chat !== undefined ? { chat } : {}),
      };
    },
  };
}

/**
 * The output block's summary: written (an llm node gave it), or why not.
 * `params.summary` is `{status: 'skipped', reason}` from the compiler, or
 * `{status: 'requested'}` when an llm node was to write it.
 */
function summaryEntry(param: unknown, summary: unknown): RouteEntry | undefined {
  if (param === null || typeof param !== 'object') return undefined;
  const p = param as { status?: unknown; reason?: unknown };
  if (typeof summary === 'string' && summary.trim())
    return { destination: 'summary', index: -1, status: 'success', details: { characters: summary.length } };
  const reason =
    p.status === 'skipped' && typeof p.reason === 'string'
      ? p.reason
      : 'no summary was written: the summary step produced none (it failed or was skipped)';
  return { destination: 'summary', index: -1, status: 'skipped', details: { reason } };
}

/** The result with the summary in it (an output block's sections take it as their first part). */
function withSummary(data: unknown, summary: unknown): unknown {
  if (typeof summary !== 'string' || !summary.trim()) return data;
  if (isSectioned(data)) return { ...data, summary };
  return { summary, sections: [{ title: 'Result', content: data }] };
}

function conditionHolds(condition: unknown, data: unknown, field: string): boolean {
  try {
    const vars = {
      data,
      ...(data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {}),
    };
    return compileCondition(condition)({ vars });
  } catch (err) {
    throw AppError.invalid(field, (err as Error).message);
  }
}

async function deliver(
  d: ActionDeps & RouteSenders,
  ctx: ActionContext,
  dest: ParsedDestination,
  index: number,
): Promise<{ details: Record<string, unknown>; replayed: boolean }> {
  const owner = ctx.principal.userId;
  const key = ctx.runId && ctx.nodeId ? deliveryKey(ctx.runId, ctx.nodeId, index, dest.type) : '';
  const data = withSummary(ctx.inputs.data, ctx.inputs.summary);
  const at = `params.destinations[${index}]`;
  const fileName = (template: string) => {
    const r = renderFilename(template, {
      now: new Date(),
      runId: ctx.runId || 'adhoc',
      nodeId: ctx.nodeId || 'adhoc',
      extra: scalarsOf(data),
    });
    if (!r.ok) throw AppError.invalid(`${at}.config.filename_template`, r.reason);
    const ext = `.${EXTENSIONS[dest.format]}`;
    return r.name.toLowerCase().endsWith(ext) ? r.name : `${r.name}${ext}`;
  };
  const bytes = async (title = ''): Promise<Uint8Array> =>
    dest.format === 'xlsx' ? renderXlsx(data, title || 'Results') : new TextEncoder().encode(render(data, dest.format, title));
  // The destination parser refuses xlsx where a text is delivered (chat, append, notification, …).
  const text = (f: Format): TextFormat => (f === 'xlsx' ? 'markdown' : f);

  switch (dest.type) {
    case 'chat':
      return { details: { included_in_response: true, content: render(data, text(dest.format)) }, replayed: false };
    case 'knowledge_graph': {
      d.graph.requireEnabled();
      const { entities, skipped } = recordsToEntities(rowsOf(ctx.inputs.records ?? data), {
        nameField: dest.config.name_field,
        defaultType: dest.config.default_entity_type,
      });
      if (!entities.length)
        throw AppError.invalid(
          'inputs.data',
          `has no records with a name (${dest.config.name_field}) and a type PERSON or ORG to write to the knowledge graph`,
        );
      const r = await d.graph.write({
        key,
        owner,
        teamIds: ctx.principal.teamIds,
        runId: ctx.runId,
        nodeId: ctx.nodeId,
        entities,
      });
      if (r.queued) throw new QueuedDelivery({ ...r.details, records_skipped: skipped });
      return { details: { ...r.details, records_skipped: skipped }, replayed: r.replayed };
    }
    case 'document':
    case 'folder': {
      const title = fileName(dest.config.filename_template);
      const content = await bytes(title.replace(/\.[a-z]+$/, ''));
      const type = d.documents.check(CONTENT_TYPES[dest.format], content, at);
      return d.deliveries.once(key, owner, dest.type, async (q) => {
        let folder: Folder | null = null;
        if (dest.config.folder_id)
          folder = await d.documents.folderOrFail(owner, dest.config.folder_id, `${at}.config.folder_id`, q);
        else if (dest.config.folder) {
          folder = dest.config.create_if_missing
            ? await d.documents.ensurePath(owner, dest.config.folder, `${at}.config.folder`, q)
            : null;
          if (!folder)
            throw AppError.invalid(
              `${at}.config.folder`,
              'a folder path is only used with create_if_missing; name an existing folder by folder_id',
            );
        } else if (dest.type === 'folder')
          throw AppError.invalid(`${at}.config.folder`, 'a folder destination needs folder or folder_id');
        const doc = await d.documents.repo.create(
          { owner, title, contentType: type, content, folderId: folder?.id ?? null, origin: originOf(ctx) },
          q,
        );
        return {
          document_id: doc.id,
          filename: title,
          folder_path: doc.folderPath,
          version: doc.version,
          size_bytes: doc.sizeBytes,
        };
      });
    }
    case 'append_to_existing': {
      const got = await d.documents.text(owner, dest.config.document_id, `${at}.config.document_id`);
      const content = new TextEncoder().encode(
        `${got.text}${got.text.endsWith('\n') || !got.text ? '' : '\n'}${render(data, text(dest.format))}`,
      );
      d.documents.check(got.meta.contentType, content, at);
      return d.deliveries.once(key, owner, dest.type, async (q) => {
        const doc = await d.documents.repo.addVersion(owner, got.meta.id, content, got.meta.contentType, q);
        return { document_id: doc!.id, version: doc!.version };
      });
    }
    case 'data_workspace_table': {
      // An output block sends its records beside the rendered result.
      const rows = rowsOf(ctx.inputs.records ?? data);
      if (rows.length > d.limits.maxTableRows)
        throw AppError.invalid(
          'inputs.data',
          `has ${rows.length} rows; the limit is ${d.limits.maxTableRows}`,
        );
      const c = dest.config;
      let columns = dest.columns;
      if (c.schema_mapping === 'infer') {
        const inferred = inferColumns(rows, 'inputs.data');
        if (inferred.problems.length) throw invalid(inferred.problems);
        if (!inferred.columns.length) throw AppError.invalid('inputs.data', 'has no columns to save');
        columns = inferred.columns;
      }
      return d.deliveries.once(key, owner, dest.type, async (q) => {
        const r = await d.tables.write(
          {
            owner,
            workspaceId: c.workspace_id,
            tableName: c.table_name,
            columns: columns!,
            rows,
            createIfMissing: c.create_if_missing,
            ...(c.deduplication_key ? { dedupKey: c.deduplication_key } : {}),
            ...(c.upsert_key ? { upsertKey: c.upsert_key } : {}),
            source: c.source ?? (ctx.runId ? `run:${ctx.runId}` : 'api'),
            ...(c.query ? { query: c.query } : {}),
            field: `${at}.rows`,
          },
          q,
        );
        return {
          table: c.table_name,
          workspace_id: c.workspace_id,
          rows_inserted: r.inserted,
          rows_updated: r.updated,
          rows_skipped: r.skipped,
        };
      });
    }
    case 'file_export': {
      const filename = fileName(dest.config.filename_template);
      const content = await bytes();
      const type = d.documents.check(CONTENT_TYPES[dest.format], content, at);
      return d.deliveries.once(key, owner, dest.type, async (q) => {
        const id = randomUUID();
        const blob = await d.documents.repo.blobs.put(content, q);
        const [row] = await sqlRows(
          q,
          `INSERT INTO exports (id, owner_user_id, filename, content_type, blob_key, size_bytes, expires_at) VALUES ($1,$2,$3,$4,$5,$6, now() + ($7::int * interval '1 second')) RETURNING expires_at`,
          [id, owner, filename, type, blob, content.byteLength, d.limits.exportTtlSeconds],
        );
        return {
          export_id: id,
          filename,
          size_bytes: content.byteLength,
          download_url: `/api/agent-factory/workspace/exports/${id}/download`,
          expires_at: new Date(row.expires_at).toISOString(),
        };
      });
    }
    case 'notification': {
      const message = render(data, text(dest.format)).slice(0, 10_000);
      const c = dest.config;
      const details: Record<string, unknown> = {};
      const failed: string[] = [];
      let replayed = true;
      if (c.channels.includes('in_app')) {
        const r = await d.deliveries.once(key, owner, dest.type, async (q) => {
          const n = await d.inbox.notify(
            { owner, title: c.title, message, priority: c.priority, origin: originOf(ctx) },
            q,
          );
          return { notification_id: n.id };
        });
        Object.assign(details, r.details);
        replayed &&= r.replayed;
      }
      // Each channel on its own key: one failing never undoes or repeats another.
      // The row is `in_progress` while sending: found so on a replay, the process died between
      // sending and recording, and the message is sent again with the same key (an email's
      // Message-ID), which the receiver uses to drop the duplicate; the report says so.
      const outside = async (channel: 'email' | 'channel', send: (k: string) => Promise<Record<string, unknown>>) => {
        const k = key ? `${key}:${channel}` : '';
        const done = await d.deliveries.find(k);
        if (done?.status === 'delivered') {
          details[channel] = done.details;
          return;
        }
        const interrupted = done?.status === 'in_progress';
        try {
          await d.deliveries.record(k, owner, `notification_${channel}`, 'in_progress', {});
          const r = { ...(await send(k)), ...(interrupted ? { resent_after_interruption: true } : {}) };
          await d.deliveries.record(k, owner, `notification_${channel}`, 'delivered', r);
          details[channel] = r;
          replayed = false;
        } catch (err) {
          await d.deliveries.record(k, owner, `notification_${channel}`, 'failed', { error: (err as Error).message });
          failed.push(`${channel}: ${(err as Error).message}`);
          replayed = false;
        }
      };
      if (c.channels.includes('email'))
        await outside('email', (k) =>
          d.email.send({ to: c.email_to!, subject: c.title, text: message, deliveryKey: k || randomUUID() }),
        );
      if (c.channels.includes('channel'))
        await outside('channel', (k) =>
          d.channels.send(ctx, { plugin: c.channel_plugin!, channel: c.channel, title: c.title, message, deliveryKey: k }),
        );
      if (failed.length) throw new PartialDelivery(details, failed.join('; '));
      return { details, replayed };
    }
    case 'webhook': {
      // Outside the database: the log is read first and written after the POST; receivers de-duplicate by X-AF-Delivery.
      const done = await d.deliveries.find(key);
      if (done?.status === 'delivered') return { details: done.details, replayed: true };
      try {
        const r = await d.webhooks.send(
          dest.config.url,
          { delivery_id: key || randomUUID(), run_id: ctx.runId, node_id: ctx.nodeId, data },
          { deliveryKey: key, ...(dest.config.secret ? { secret: dest.config.secret } : {}) },
          ctx.signal,
        );
        const details = { http_status: r.status, attempts: r.attempts, host: new URL(dest.config.url).host };
        await d.deliveries.record(key, owner, dest.type, 'delivered', details);
        return { details, replayed: false };
      } catch (err) {
        await d.deliveries.record(key, owner, dest.type, 'failed', { error: (err as Error).message });
        throw err;
      }
    }
  }
}
