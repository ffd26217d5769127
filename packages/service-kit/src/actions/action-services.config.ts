/** The config variables of every process that reads the action table (the orchestrator and the planner). */
import { z } from 'zod';
import { parseActionServices } from './action-table.js';

export const actionServicesEnvShape = {
  /**
   * The services whose actions tool nodes run (ActionService), as
   * `name=host:port` entries: `output-router=host:port,connector-runtime=host:port`.
   * Empty: only the actions the orchestrator runs itself (connector calls,
   * data transforms, llm tasks, approvals, control flow).
   */
  ACTION_SERVICES: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const { entries, errors } = parseActionServices(text);
      for (const message of errors) ctx.addIssue({ code: 'custom', message });
      return entries;
    }),
  /** How often the action table is asked again of ACTION_SERVICES (milliseconds). */
  ACTION_REFRESH_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
};
