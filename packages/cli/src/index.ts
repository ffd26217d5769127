/** The `af` CLI's commands as functions (the binary is `main.ts`). */
export { testConnector, type ConnectorTestOptions } from './commands/connector-test.js';
export { formatIssue, loadConnectorFile, validateConnector } from './commands/connector-validate.js';
export { loadPluginModule, pluginDev, type PluginDevOptions } from './commands/plugin-dev.js';
export { CliError, processIo, type CliIo } from './io.js';
export { parseKeyValues } from './key-values.js';
export { createCli, type CliDeps } from './program.js';
