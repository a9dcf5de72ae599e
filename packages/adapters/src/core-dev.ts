// TEMPORARY development shim until @eql/core exports its engine interfaces. Removed before hand-off.
export * from '../../core/src/engine/interfaces.js';
export * from '../../core/src/engine/observations.js';
export { addressRange, isPublicAddress } from '@eql/core';
