/** Every connector-runtime migration, in order (the service and the re-encrypt command both open the schema with it). */
import { Init1763800000000 } from './1763800000000-init.js';
import { Bindings1764100000004 } from './1764100000004-bindings.js';

export const CONNECTOR_RUNTIME_MIGRATIONS = [Init1763800000000, Bindings1764100000004];
