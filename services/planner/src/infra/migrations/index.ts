import { Init1763800000000 } from './1763800000000-init.js';
import { FlexRegistry1764300000000 } from './1764300000000-flex-registry.js';

/** Every planner migration, oldest first. */
export const plannerMigrations = [Init1763800000000, FlexRegistry1764300000000];
