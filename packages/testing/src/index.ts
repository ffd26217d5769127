export * from './env.js';
export * from './ports.js';
export * from './database.js';
export * from './service-process.js';
export * from './stack.js';
export * from './sse.js';
export * from './http.js';
export * from './fixture-server.js';
