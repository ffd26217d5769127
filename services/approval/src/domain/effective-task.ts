/**
 * Tool HITL instructions (seed multi-agent-rag.md "HITL instructions are
 * auto-classified as enhance or override"): an approver may add instructions;
 * `enhance` asks the agent to do both, `override` to follow the instructions
 * instead of the original task. The texts are the seed's, word for word, so
 * a composer can detect an overridden task.
 */
export type Intent = 'enhance' | 'override';

export const INTENTS: readonly Intent[] = ['enhance', 'override'];

/** Marker the composer looks for (seed `_detect_hitl_overrides`). */
export const OVERRIDE_MARKER = 'IMPORTANT — The user wants you to follow these override instructions';

/** The task the agent runs with: the original when there are no instructions. */
export function effectiveTask(task: string, instructions: string, intent: Intent): string {
  const extra = instructions.trim();
  if (!extra) return task;
  if (intent === 'override') {
    return `${OVERRIDE_MARKER}\nINSTEAD of the original task.\n\n### User Override Instructions\n${extra}\n\n### Original Task (for reference only)\n${task}`;
  }
  return `Complete BOTH the original task AND the additional user instructions below.\n\n### Original Task\n${task}\n\n### User Enhanced Instructions\n${extra}`;
}

/** What the classifier is told (the approval service's model decides between the two). */
export const CLASSIFIER_INSTRUCTIONS =
  'A person approved an AI agent\'s task and added instructions. Decide whether the instructions ENHANCE the task ' +
  '(the agent should do the original task and also what the instructions add) or OVERRIDE it (the agent should do what ' +
  'the instructions say instead of the original task). Answer with {"intent": "enhance"} or {"intent": "override"}.';

export const CLASSIFIER_SCHEMA = {
  type: 'object',
  required: ['intent'],
  properties: { intent: { type: 'string', enum: ['enhance', 'override'] } },
} as const;
