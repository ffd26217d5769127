import { ActionExecutions1765000000000, ActionReceipts1766800000000 } from '@af/service-kit';
import { DocumentsIndex1766100000000 } from '../../documents/infra/documents-index.migration.js';
import { DocumentsIndexGenerations1766100000002 } from '../../documents/infra/documents-generations.migration.js';
import { Init1764300000000 } from './1764300000000-init.js';
import { TrigramSearch1766100000001 } from './1766100000001-trigram-search.js';
import { LinkOwner1766300000000 } from './1766300000000-link-owner.js';
import { BlockKeysVersion1766400000000 } from './1766400000000-block-keys-version.js';
import { ReviewAutoMerged1766500000000 } from './1766500000000-review-auto-merged.js';
import { TermKey1766600000000 } from './1766600000000-term-key.js';

/** Every entity-resolution migration, oldest first. */
export const ENTITY_RESOLUTION_MIGRATIONS = [
  Init1764300000000,
  ActionExecutions1765000000000,
  DocumentsIndex1766100000000,
  TrigramSearch1766100000001,
  DocumentsIndexGenerations1766100000002,
  LinkOwner1766300000000,
  BlockKeysVersion1766400000000,
  ReviewAutoMerged1766500000000,
  TermKey1766600000000,
  ActionReceipts1766800000000,
];
