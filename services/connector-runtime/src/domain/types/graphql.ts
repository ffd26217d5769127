/** `graphql` connectors (seed §4). Not executable yet. */
import type { ConnectorTypeModule } from '../connector-type.js';
import { unimplementedType } from './unimplemented.js';

export const graphqlType: ConnectorTypeModule = unimplementedType('graphql');
