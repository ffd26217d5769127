/** `existing_tool` connectors (seed §4). Not executable yet. */
import type { ConnectorTypeModule } from '../connector-type.js';
import { unimplementedType } from './unimplemented.js';

export const existingToolType: ConnectorTypeModule = unimplementedType('existing_tool');
