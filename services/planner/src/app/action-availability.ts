/**
 * What this deployment can run, as the planner knows it: the action table of
 * ACTION_SERVICES (the same services the orchestrator routes tool nodes to,
 * listed at start and every ACTION_REFRESH_MS). CompilePlaybook refuses a plan
 * naming an action nothing serves (`action_unavailable`, INVALID_ARGUMENT);
 * ListActions marks each action available and says who serves it; plugin tools
 * the table lists join the Action I/O Registry so playbook steps can name them.
 */
import { actionOwner, defaultActionRegistry, IN_PROCESS_TOOL_ACTIONS, unavailableActions, type ActionContract, type ActionIORegistry } from '@af/plan';
import { AppError, pluginActionName, type Logger, type ServedAction } from '@af/service-kit';
import { pluginRegistrations } from '../domain/registry/plugin-tool-contract.js';

/** The part of ActionServices the planner reads. */
export interface ActionTableView {
  served(): ServedAction[];
  /**
   * Ask the services again before refusing (ActionServices.refreshUnknown): a
   * refused name may have just appeared (a plugin registered, or its service
   * started after the planner).
   */
  refreshUnknown?(): Promise<void>;
}

export interface ActionStatus {
  available: boolean;
  /** The serving service; '' when the orchestrator runs it itself or nothing serves it. */
  servedBy: string;
  /** The service that owns it ('' when unknown). */
  owner: string;
}

export class ActionAvailability {
  private cached: { key: string; registry: ActionIORegistry } | undefined;

  constructor(
    private readonly table: ActionTableView,
    private readonly log: Logger,
  ) {}

  /** The built-in contracts and the plugin tools served now. */
  registry(): ActionIORegistry {
    const plugins = this.table.served().filter((s) => s.contract && typeof s.contract.plugin === 'string');
    const key = plugins.map((p) => `${p.action}@${p.version}`).join(',');
    if (this.cached?.key === key) return this.cached.registry;
    const registry = defaultActionRegistry();
    for (const reg of pluginRegistrations(plugins.map((p) => ({ served: p.action, sideEffects: p.sideEffects, contract: p.contract! })))) {
      for (const tool of reg.tool_contracts) {
        try {
          registry.registerPlugin({ ...reg, tool_contracts: [tool] });
        } catch (err) {
          // A tool named like a built-in (or like another plugin's tool) stays reachable only as a `{plugin, action}` workflow step.
          this.log.warn({ plugin: reg.plugin_name, tool: tool.name, reason: (err as Error).message }, 'plugin tool not added to the action registry');
        }
      }
    }
    this.cached = { key, registry };
    return registry;
  }

  /**
   * Throws INVALID_ARGUMENT with an `action_unavailable` violation per tool
   * step whose action nothing of this deployment runs, once the services were
   * asked again.
   */
  async check(plan: unknown): Promise<void> {
    let violations = this.unavailable(plan);
    if (violations.length === 0) return;
    if (this.table.refreshUnknown) {
      await this.table.refreshUnknown();
      violations = this.unavailable(plan);
      if (violations.length === 0) return;
    }
    const first = violations[0]!;
    throw new AppError('INVALID_ARGUMENT', `action_unavailable: ${first.field}: ${first.reason}${violations.length > 1 ? ` (+${violations.length - 1} more)` : ''}`, { violations });
  }

  private unavailable(plan: unknown) {
    const served = new Set(this.table.served().map((s) => s.action));
    return unavailableActions(plan, (name) => served.has(name), this.registry());
  }

  /** Whether a run can execute the action, and who serves and owns it. */
  status(contract: ActionContract): ActionStatus {
    const registry = this.registry();
    const owner = actionOwner(contract.name, registry) ?? '';
    if (contract.stepType === 'llm_task' || IN_PROCESS_TOOL_ACTIONS.includes(contract.name)) return { available: true, servedBy: '', owner };
    const served = contract.category.startsWith('plugin:') ? pluginActionName(contract.category.slice('plugin:'.length), contract.name) : contract.name;
    const by = this.table.served().find((s) => s.action === served);
    return by ? { available: true, servedBy: by.service, owner } : { available: false, servedBy: '', owner };
  }
}
