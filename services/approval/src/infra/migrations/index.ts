import { Init1764200000000 } from './1764200000000-init.js';

/** Every approval-service migration, oldest first. */
export const APPROVAL_MIGRATIONS = [Init1764200000000];
