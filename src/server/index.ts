export type { AppOptions } from './create-app.js';
export { createApp } from './create-app.js';
export { isLoopbackHost } from './loopback.js';
export type { RunningServer, ServerOptions } from './start-server.js';
export { DEFAULT_SERVE_PORT, ServeConfigError, startServer } from './start-server.js';
