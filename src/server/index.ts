export type { AnalyticsReader } from './analytics-reader.js';
export { createAnalyticsReader } from './analytics-reader.js';
export type { AppOptions } from './create-app.js';
export { AppConfigError, createApp } from './create-app.js';
export type { HttpApp } from './http-app.js';
export { isLoopbackHost } from './loopback.js';
export { serveTokenProblem } from './serve-token.js';
export type { RunningServer, ServerOptions } from './start-server.js';
export { DEFAULT_SERVE_PORT, ServeConfigError, startServer } from './start-server.js';
