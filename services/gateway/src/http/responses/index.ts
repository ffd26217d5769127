/** Every documented answer, by area; openapi.ts names one per route. */
export * from './common.js';
export * from './runs.js';
export * from './connectors.js';
export * from './playbooks.js';
export * from './approvals.js';
export * from './flex.js';
export * from './accounts.js';
export * from './profiles.js';
export * from './entity-resolution.js';
export * from './workspace.js';
export * from './agents.js';
export * from './query.js';
export * from './documents.js';
