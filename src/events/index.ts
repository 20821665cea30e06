export * from './catalog.js';
export type { EventListener } from './event-bus.js';
export { EventBus } from './event-bus.js';
export { MAX_PAYLOAD_DEPTH, validatePublishedEvent } from './validate-published-event.js';
