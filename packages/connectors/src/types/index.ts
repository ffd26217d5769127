/** Every connector type by its `type` value. */
import type { ConnectorType } from '../connector-definition.schema.js';
import type { ConnectorTypeModule } from '../connector-type.js';
import { databaseType } from './database/database.js';
import { existingToolType } from './existing-tool/existing-tool.js';
import { fileParserType } from './file-parser/file-parser.js';
import { graphqlType } from './graphql/graphql.js';
import { restApiType } from './rest-api/rest-api.js';
import { rssFeedType } from './rss-feed/rss-feed.js';
import { webScraperType } from './web-scraper/web-scraper.js';

export const CONNECTOR_TYPE_MODULES: Readonly<Record<ConnectorType, ConnectorTypeModule>> = {
  rest_api: restApiType,
  graphql: graphqlType,
  web_scraper: webScraperType,
  file_parser: fileParserType,
  database: databaseType,
  rss_feed: rssFeedType,
  existing_tool: existingToolType,
};

export function connectorTypeModule(type: ConnectorType): ConnectorTypeModule {
  return CONNECTOR_TYPE_MODULES[type];
}
