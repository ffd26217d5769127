/**
 * The ActionService clients of the services a process is configured with
 * (ACTION_SERVICES) and the table of who serves which action, asked again
 * every ACTION_REFRESH_MS and when a caller names an action the table does
 * not know (at once while a configured service has never answered, as when it
 * starts after this process; otherwise at most once per minRefreshGapMs). A service that does not answer keeps the actions
 * it listed last, so a restart fails calls as UNAVAILABLE (retried) rather
 * than as unavailable actions. The orchestrator executes through it; the
 * planner only reads the table (availability at validation).
 */
import { action } from '@af/contracts';
import { AppError } from '../errors.js';
import { Metadata } from '@grpc/grpc-js';
import { call, createGrpcClientWithChannel } from '../grpc/grpc-client.js';
import { PRINCIPAL_TOKEN_METADATA } from '../auth/service-auth.js';
import { ActionStream, type ExecuteDuplex } from './action-stream.js';
import type { Logger } from '../logger.js';
import type { PrincipalSigner } from '../auth/service-auth.js';
import { buildActionTable, type ActionServiceEntry, type ActionTable, type ListedActions, type ServedAction } from './action-table.js';

/** One Execute call, as the orchestrator makes it for a tool node. */
export interface ActionCall {
  action: string;
  inputs: Record<string, unknown>;
  params: Record<string, unknown>;
  userId: string;
  /** The caller's teams (team actions check membership); none when not given. */
  teamIds?: readonly string[];
  idempotencyKey: string;
  runId: string;
  nodeId: string;
  attempt: number;
  timeoutMs: number;
}

/** What the orchestrator's tool executor needs of the action services. */
export interface ActionPort {
  /** The service serving `action`, asking the services again (refreshUnknown) when the table does not know it. */
  servedBy(action: string): Promise<ServedAction | undefined>;
  execute(served: ServedAction, call: ActionCall, signal: AbortSignal): Promise<{ outputs: Record<string, unknown>; replayed: boolean }>;
}

const LIST_DEADLINE_MS = 3_000;
/** Headroom for the service's own DEADLINE_EXCEEDED to arrive before the client gives up. */
const DEADLINE_SLACK_MS = 1_000;

export class ActionServices implements ActionPort {
  private readonly clients = new Map<string, action.ActionServiceClient>();
  /** Per address: its ExecuteStream, used once open (Execute meanwhile, and for services that do not serve it). */
  private readonly streams = new Map<string, ActionStream>();
  private readonly lastListed = new Map<string, ListedActions>();
  private table: ActionTable = { byAction: new Map(), conflicts: [] };
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private lastRefreshAt = 0;

  constructor(
    private readonly entries: ActionServiceEntry[],
    private readonly log: Logger,
    /** Signs each call for the run's owner (ListActions as the orchestrator itself). */
    private readonly auth: PrincipalSigner,
    /**
     * minRefreshGapMs: how soon an unknown name may trigger another listing (default 1 s);
     * stream: false to call every action through unary Execute (default: ExecuteStream once open).
     */
    private readonly options: { refreshMs: number; minRefreshGapMs?: number; stream?: boolean },
  ) {
    for (const e of entries) {
      const { client, raw } = createGrpcClientWithChannel<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, e.address, { auth, readyWaitMs: LIST_DEADLINE_MS });
      this.clients.set(e.address, client);
      if (options.stream !== false) {
        this.streams.set(
          e.address,
          new ActionStream(() => {
            // Opened as this process itself; each call on it carries its own principal token.
            const md = new Metadata();
            md.set(PRINCIPAL_TOKEN_METADATA, auth.tokenFor(undefined));
            return (raw.executeStream as unknown as (md: Metadata) => ExecuteDuplex)(md);
          }),
        );
      }
    }
  }

  /** The first listing (not fatal: a service that is down is asked again later), then a refresh every refreshMs. */
  async start(): Promise<void> {
    if (this.entries.length === 0) return;
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
    await this.refresh();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const s of this.streams.values()) s.close();
  }

  /** Every action served now (for ListActions-like views and tests). */
  served(): ServedAction[] {
    return [...this.table.byAction.values()];
  }

  /** How calls to the service named `service` go now: over its open ExecuteStream, or as unary Execute calls. */
  transport(service: string): 'stream' | 'unary' {
    const entry = this.entries.find((e) => e.name === service);
    return entry && this.streams.get(entry.address)?.streaming ? 'stream' : 'unary';
  }

  /** The service serving `action` as of the last listing (no call). */
  servedNow(name: string): ServedAction | undefined {
    return this.table.byAction.get(name);
  }

  async servedBy(name: string): Promise<ServedAction | undefined> {
    const known = this.table.byAction.get(name);
    if (known || this.entries.length === 0) return known;
    await this.refreshUnknown();
    return this.table.byAction.get(name);
  }

  async execute(served: ServedAction, c: ActionCall, signal: AbortSignal): Promise<{ outputs: Record<string, unknown>; replayed: boolean }> {
    const client = this.clients.get(served.address);
    if (!client) throw new AppError('INTERNAL', `no client for ${served.service} at ${served.address}`, { retryable: false });
    if (signal.aborted) throw new AppError('CANCELLED', `action ${c.action} was cancelled before it was called`);
    const request: action.ExecuteRequest = {
      action: c.action,
      inputs: c.inputs,
      params: c.params,
      idempotencyKey: c.idempotencyKey,
      principal: { userId: c.userId, teamIds: [...(c.teamIds ?? [])] },
      timeoutMs: c.timeoutMs,
      runId: c.runId,
      nodeId: c.nodeId,
      attempt: c.attempt,
    };
    const stream = this.streams.get(served.address);
    const response = stream?.ready()
      ? await stream.execute({ request, principalToken: this.auth.tokenFor(request.principal!), waitMs: c.timeoutMs + DEADLINE_SLACK_MS, signal })
      : await call(client.execute(request), c.timeoutMs + DEADLINE_SLACK_MS);
    return { outputs: response.outputs ?? {}, replayed: response.replayed };
  }

  /**
   * A caller met a name the table does not know. Resolves once the table is
   * as fresh as it can usefully be: after the listing in flight; after a new
   * one while a configured service has never answered (it may be starting:
   * a run started right after the stack came up must not be refused); after a
   * new one when the last is older than minRefreshGapMs; otherwise at once
   * (names nothing serves do not list the services on every call).
   */
  async refreshUnknown(): Promise<void> {
    if (this.entries.length === 0) return;
    if (this.refreshing) return this.refreshing;
    const starting = this.entries.some((e) => !this.lastListed.has(e.address));
    if (starting || Date.now() - this.lastRefreshAt >= (this.options.minRefreshGapMs ?? 1_000)) await this.refresh();
  }

  /** Asks every service what it serves (and tries ExecuteStream again where it was not served); one refresh at a time. */
  refresh(): Promise<void> {
    for (const s of this.streams.values()) s.reset();
    this.refreshing ??= this.listAll().finally(() => {
      this.refreshing = undefined;
      this.lastRefreshAt = Date.now();
    });
    return this.refreshing;
  }

  private async listAll(): Promise<void> {
    await Promise.all(
      this.entries.map(async (entry) => {
        try {
          const listed = await call(this.clients.get(entry.address)!.listActions({}), LIST_DEADLINE_MS);
          this.lastListed.set(entry.address, {
            entry,
            service: listed.service || entry.name,
            actions: listed.actions.map((a) => ({ name: a.name, version: a.version, sideEffects: a.sideEffects, ...(a.contract ? { contract: a.contract } : {}) })),
          });
        } catch (err) {
          this.log.warn({ service: entry.name, code: (err as AppError).code }, 'action service did not list its actions; keeping its last listing');
        }
      }),
    );
    const next = buildActionTable(this.entries.flatMap((e) => this.lastListed.get(e.address) ?? []));
    // A service that has never answered (it starts after us) is asked again soon, not only at the next refresh.
    if (this.timer && this.entries.some((e) => !this.lastListed.has(e.address))) {
      setTimeout(() => void this.refresh(), Math.min(1_000, this.options.refreshMs)).unref();
    }
    for (const c of next.conflicts) this.log.warn(c, 'action served by more than one service; the first configured one serves it');
    this.table = next;
  }
}
