/** What every action handler of this service gets. */
import type { ActionContext } from '@af/service-kit';
import type { Origin } from '../../domain/workspace.js';
import type { DeliveryLog } from '../../infra/delivery-log.js';
import type { FolderListings } from '../../infra/folder-listings.js';
import type { InboxRepository } from '../../infra/inbox.repository.js';
import type { WorkspaceTables } from '../../infra/workspace-tables.js';
import type { Documents } from '../documents.js';

export interface ActionDeps {
  documents: Documents;
  tables: WorkspaceTables;
  inbox: InboxRepository;
  deliveries: DeliveryLog;
  /** The listings behind detect_folder_changes' watermarks (deletions are found against them). */
  listings: FolderListings;
  limits: { maxTableRows: number; exportTtlSeconds: number };
}

export const originOf = (ctx: ActionContext): Origin => ({
  ...(ctx.runId ? { runId: ctx.runId } : {}),
  ...(ctx.nodeId ? { nodeId: ctx.nodeId } : {}),
  action: ctx.action,
});

/** The delivery key of an action's one write: stable across attempts of the node (`runId:nodeId:<action>`); empty outside a run. */
export const actionKey = (ctx: ActionContext): string =>
  ctx.runId && ctx.nodeId ? `${ctx.runId}:${ctx.nodeId}:${ctx.action}` : '';
