export { Session, SESSION_FORMAT_VERSION } from './session.js';
export type { SessionOptions, SerializedSession, SegmentInput } from './session.js';
export { assemble } from './assemble.js';
export type { AssembleOptions } from './assemble.js';
export { currentTimeProvider, tailProvider } from './tail-provider.js';
export type { TailContext, TailProvider } from './tail-provider.js';
