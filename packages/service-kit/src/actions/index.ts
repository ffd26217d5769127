export * from './action-handler.js';
export * from './action-records.js';
export * from './action-dispatcher.js';
export * from './pg-action-records.js';
export { ActionServiceModule, type ActionServiceOptions } from './action.controller.js';
export * from './action-stream.js';
export * from './action-table.js';
export * from './action-services.js';
export * from './action-services.config.js';
