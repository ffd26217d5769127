/** `rss_feed` connectors (seed §4). Not executable yet. */
import type { ConnectorTypeModule } from '../connector-type.js';
import { unimplementedType } from './unimplemented.js';

export const rssFeedType: ConnectorTypeModule = unimplementedType('rss_feed');
