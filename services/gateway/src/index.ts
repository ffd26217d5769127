export { bootstrapGateway } from './bootstrap.js';
