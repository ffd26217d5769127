import { ActionExecutions1765000000000, ActionReceipts1766800000000 } from '@af/service-kit';
import { Init1763800000000 } from './1763800000000-init.js';
import { FlexRegistry1764300000000 } from './1764300000000-flex-registry.js';
import { OwnerScopedRegistry1765000000000 } from './1765000000000-owner-scoped-registry.js';
import { PlaybookVersions1765200000000 } from './1765200000000-playbook-versions.js';
import { AgentProfiles1765600000000 } from './1765600000000-agent-profiles.js';
import { AgentJournal1766300000000 } from './1766300000000-agent-journal.js';
import { QueryPipeline1766500000000 } from './1766500000000-query-pipeline.js';
import { QueryIdempotency1766600000000 } from './1766600000000-query-idempotency.js';

/** Every planner migration, oldest first. */
export const plannerMigrations = [Init1763800000000, FlexRegistry1764300000000, OwnerScopedRegistry1765000000000, PlaybookVersions1765200000000, AgentProfiles1765600000000, AgentJournal1766300000000, ActionExecutions1765000000000, QueryPipeline1766500000000, QueryIdempotency1766600000000, ActionReceipts1766800000000];
