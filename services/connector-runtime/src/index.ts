export { bootstrapConnectorRuntime } from './bootstrap.js';
