export * from './catalog.js';
export type { EventListener } from './event-bus.js';
export { EventBus } from './event-bus.js';
