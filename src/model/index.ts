export * from './content.js';
export * from './json.js';
export * from './request.js';
export * from './usage.js';
export * from './errors.js';
export * from './limits.js';
export { canonicalJson, canonicalize } from './canonical-json.js';
export { sha256, hashOf, chainHash, canonicalBytes } from './hash.js';
export { validateMessage, validatePairing, validateTools } from './validate.js';
