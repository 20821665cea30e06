export { canonicalize, canonicalJson } from './canonical-json.js';
export * from './content.js';
export * from './errors.js';
export { canonicalBytes, chainHash, hashOf, sha256 } from './hash.js';
export * from './json.js';
export * from './limits.js';
export * from './request.js';
export * from './usage.js';
export { validateMessage, validatePairing, validateTools } from './validate.js';
