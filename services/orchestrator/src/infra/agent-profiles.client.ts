/**
 * The planner's agent profiles, for schedules that target one: whether the
 * schedule's owner may run the profile (when the schedule is saved), and a
 * fire's run prepared the way a chat message to the agent is (PrepareMessage:
 * strategy, plan, inputs; then RecordAgentRun, so the run is in the agent's
 * execution log under the fire's run id before it exists — the same order as
 * the gateway's chat and `POST /profiles/{id}/test`).
 */
import { profiles } from '@af/contracts';
import { planFromWire, PlanWireError } from '@af/plan';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';

export interface AgentPrincipal {
  userId: string;
  teamIds: readonly string[];
}

/** What a fire of an agent schedule runs. */
export interface PreparedAgentRun {
  agentProfileId: string;
  /** The plan in the IR's object shape (parsed and checked by RunCommands.prepare). */
  plan: Record<string, unknown>;
  inputs: Record<string, unknown>;
  /** Through which team the owner reaches the agent ('' for the profile's owner). */
  teamId: string;
  strategy: string;
}

export interface AgentProfiles {
  /** NOT_FOUND unless the profile exists and the principal may run it (theirs or shared with one of their teams). */
  authorize(principal: AgentPrincipal, agentProfileId: string): Promise<void>;
  /** The fire's run, logged in the agent's execution log under `runId`; errors a retry cannot fix are not retryable. */
  prepareRun(principal: AgentPrincipal, r: { agentProfileId: string; query: string; inputs: Record<string, unknown>; runId: string; runContext: string }): Promise<PreparedAgentRun>;
}

export function agentProfilesClient(address: string, auth: PrincipalSigner, timeoutMs = 60_000): AgentProfiles {
  const client = createGrpcClient<profiles.AgentProfileServiceClient>('planner', profiles.AGENT_PROFILE_SERVICE_NAME, address, { auth });
  const principalOf = (p: AgentPrincipal) => ({ userId: p.userId, teamIds: [...p.teamIds] });
  return {
    async authorize(principal, agentProfileId) {
      try {
        await call(client.authorizeProfile({ principal: principalOf(principal), profileId: agentProfileId, action: 'run' }), 15_000);
      } catch (err) {
        // A profile the owner may see but not run answers like a missing one: schedules name only what they can use.
        if (err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'PERMISSION_DENIED')) throw AppError.notFound('agent profile', agentProfileId);
        throw err;
      }
    },
    async prepareRun(principal, r) {
      const wire = principalOf(principal);
      let p: profiles.PrepareMessageResponse;
      try {
        p = await call(client.prepareMessage({ principal: wire, message: r.query, agentProfileId: r.agentProfileId, inputs: r.inputs }), timeoutMs);
      } catch (err) {
        // The profile was deleted or unshared since the schedule was saved: no retry brings it back.
        if (err instanceof AppError && !err.retryable) throw new AppError(err.code, `agent profile ${r.agentProfileId}: ${err.message}`, { retryable: false });
        throw err;
      }
      const handle = `@${p.handle}`;
      if (p.needsModel) throw new AppError('FAILED_PRECONDITION', `agent '${handle}' answers with ${p.strategy}, which needs a chat model, and none is configured`, { retryable: false });
      const clarify = p.clarify as { message?: unknown } | undefined;
      if (clarify && Object.keys(clarify).length) {
        throw new AppError('FAILED_PRECONDITION', `agent '${handle}' needs more input than the schedule gives: ${typeof clarify.message === 'string' ? clarify.message : JSON.stringify(clarify)}`, { retryable: false });
      }
      if (!p.plan) throw new AppError('FAILED_PRECONDITION', `agent '${handle}' has nothing to run for this query`, { retryable: false });
      let plan: Record<string, unknown>;
      try {
        plan = planFromWire(p.plan) as unknown as Record<string, unknown>;
      } catch (e) {
        if (e instanceof PlanWireError) throw new AppError('FAILED_PRECONDITION', `agent '${handle}': plan.${e.field}: ${e.reason}`, { retryable: false });
        throw e;
      }
      await call(
        client.recordAgentRun({ principal: wire, runId: r.runId, agentProfileId: p.agentProfileId, query: p.query, strategy: p.strategy, playbookId: p.playbookId, teamId: p.teamId, runContext: r.runContext }),
        15_000,
      );
      return { agentProfileId: p.agentProfileId, plan, inputs: (p.inputs as Record<string, unknown> | undefined) ?? {}, teamId: p.teamId, strategy: p.strategy };
    },
  };
}

/** Without PLANNER_URL an agent schedule cannot be saved. */
export const noAgentProfiles: AgentProfiles = {
  async authorize() {
    throw new AppError('FAILED_PRECONDITION', 'schedules cannot target agent profiles: PLANNER_URL is not configured for the orchestrator', { retryable: false });
  },
  async prepareRun() {
    throw new AppError('FAILED_PRECONDITION', 'agent profiles cannot be run: PLANNER_URL is not configured for the orchestrator', { retryable: false });
  },
};
