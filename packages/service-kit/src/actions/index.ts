export * from './action-handler.js';
export * from './action-records.js';
export * from './action-dispatcher.js';
export * from './pg-action-records.js';
export { ActionServiceModule } from './action.controller.js';
