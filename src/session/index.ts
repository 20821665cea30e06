export type { AssembleOptions } from './assemble.js';
export { assemble } from './assemble.js';
export type { SegmentInput, SerializedSession, SessionOptions } from './session.js';
export { SESSION_FORMAT_VERSION, Session } from './session.js';
export type { TailContext, TailProvider } from './tail-provider.js';
export { currentTimeProvider, tailProvider } from './tail-provider.js';
