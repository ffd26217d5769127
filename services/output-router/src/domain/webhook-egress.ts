import type { AllowListKind } from '@af/egress';

/** The allow-list of webhook destinations (named in refusals). */
export const WEBHOOK_EGRESS: AllowListKind = {
  variable: 'OUTPUT_EGRESS_ALLOW',
  subject: 'webhook',
  subjectId: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  subjectIdHint: 'kebab-case',
  dialers: 'webhooks',
};
