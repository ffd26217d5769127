import { ActionExecutions1765000000000, ActionReceipts1766800000000 } from '@af/service-kit';
import { Init1765300000000 } from './1765300000000-init.js';
import { GraphQueue1765400000000 } from './1765400000000-graph-queue.js';
import { FolderListings1765500000000 } from './1765500000000-folder-listings.js';
import { TeamFolders1766300000000 } from './1766300000000-team-folders.js';

/** Every output-router migration, oldest first. */
export const OUTPUT_ROUTER_MIGRATIONS = [ActionExecutions1765000000000, Init1765300000000, GraphQueue1765400000000, FolderListings1765500000000, TeamFolders1766300000000, ActionReceipts1766800000000];
