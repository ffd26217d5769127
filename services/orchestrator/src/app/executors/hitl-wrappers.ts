/**
 * Two wrappers around the executors of nodes that do the work (llm, capability):
 *
 * - `clarifying`: a node with `params.allow_clarify: true` may answer
 *   `{ "hitl_clarify": { "question": "…", "questionId"?: "…" } }` instead of
 *   its output (flex spec §15.x `hitl.clarify()`). The node then waits on a
 *   `clarify` request; the answer is appended to the run's
 *   hitlClarifications and the same node runs again, with the clarifications
 *   in its inputs (`hitlClarifications`). At most `params.max_clarifications`
 *   (default 3) questions per node.
 * - `hitlGated`: an agent behind a tool HITL gate (`<agent>__approval`, as
 *   master plans compile `requires_approval` tools) runs with the effective
 *   task of the approval (enhance / override instructions, seed
 *   `_effective_task`) and `hitl_context`; when the gate did not approve —
 *   denied, timed out, or skipped on a non-streaming run — the agent does not
 *   run and outputs the seed's synthetic `{task_done: false, error, partial_data}`.
 */
import { AppError } from '@af/service-kit';
import { clarifyAsk, clarifySchema, contractSummary, DEFAULT_MAX_CLARIFICATIONS, deniedAgentOutput, hitlRequestPayload } from '../../domain/human-request.js';
import type { NodeExecutor } from '../../domain/node-executor.js';
import { openRequest, waitOn, type HitlDeps } from './waiting.executors.js';

export function clarifying(inner: NodeExecutor, deps: HitlDeps): NodeExecutor {
  return async (ctx) => {
    if (ctx.params.allow_clarify !== true) return inner(ctx);
    const all = await deps.waits.clarifications(ctx.runId);
    const answered = all.filter((e) => e.nodeId === ctx.instanceId && e.answer !== undefined).length;
    const output = await inner({
      ...ctx,
      node: { ...ctx.node, outputSchema: clarifySchema(ctx.node.outputSchema) },
      inputs: { ...ctx.inputs, hitlClarifications: all },
    });
    const ask = clarifyAsk(output);
    if (!ask) return output;
    const max = typeof ctx.params.max_clarifications === 'number' ? ctx.params.max_clarifications : DEFAULT_MAX_CLARIFICATIONS;
    if (answered >= max) {
      throw new AppError('FAILED_PRECONDITION', `node ${ctx.instanceId} asked for a clarification again after ${answered} answer(s) (max_clarifications is ${max})`, { retryable: false });
    }
    const capabilityId = ctx.node.capabilityId;
    const request = await openRequest(ctx, deps, {
      ownerUserId: ctx.userId,
      kind: 'clarify',
      runId: ctx.runId,
      nodeId: ctx.instanceId,
      runContext: ctx.run.runContext,
      operatorPrompt: ask.question,
      details: { ...(ask.questionId ? { question_id: ask.questionId } : {}), contract_summary: contractSummary(ctx.node) },
      ...(capabilityId ? { capabilityId } : {}),
      teamIds: [],
      allowTeamDecisions: false,
      assigneeUserIds: [],
      timeoutSeconds: 0,
      autoApprove: false,
      // One request per question: the count of answers so far keeps a replay on the same question.
      idempotencyKey: `${ctx.idempotencyKey}:clarify:${answered + 1}`,
    });
    const questionId = ask.questionId ?? request.id;
    await deps.waits.addQuestion(ctx.runId, { requestId: request.id, nodeId: ctx.instanceId, ...(capabilityId ? { capabilityId } : {}), questionId, question: ask.question, createdAt: new Date().toISOString() });
    const frame = {
      type: 'hitl_request',
      payload: hitlRequestPayload({
        request,
        nodeId: ctx.instanceId,
        operatorPrompt: ask.question,
        contractSummary: contractSummary(ctx.node),
        runContext: ctx.run.runContext,
        extra: { questionId },
      }),
    };
    return waitOn(ctx, deps, request, frame);
  };
}

export function hitlGated(inner: NodeExecutor, deps: HitlDeps): NodeExecutor {
  return async (ctx) => {
    const gateId = `${ctx.node.id}__approval`;
    if (!ctx.node.dependsOn.includes(gateId)) return inner(ctx);
    const gate = ctx.scope.vars[gateId] as { approved?: unknown; effective_task?: unknown; instructions?: unknown; intent?: unknown; decided_by?: unknown } | undefined;
    if (gate?.approved === true) {
      const original = ctx.inputs.task;
      const task = typeof gate.effective_task === 'string' && gate.effective_task ? gate.effective_task : original;
      return inner({
        ...ctx,
        inputs: {
          ...ctx.inputs,
          task,
          hitl_context: { approved: true, original_task: original ?? null, instructions: gate.instructions ?? '', intent: gate.intent ?? null, decided_by: gate.decided_by ?? null },
        },
      });
    }
    const suffix = ctx.instanceId.slice(ctx.node.id.length);
    const state = await deps.waits.nodeState(ctx.runId, gateId + suffix);
    return deniedAgentOutput(state?.skipReason ?? 'rejected', ctx.params.tools);
  };
}
