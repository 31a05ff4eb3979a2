export * from './types';
export * from './errors';
export { type PoolConfig, type PoolSize } from '../config';
export { CapacityGate } from './capacityGate';
export { JobRegistry, type JobOutcome, type JobRegistryOptions } from './jobRegistry';
export { WorkerPool, type CancelOptions } from './workerPool';
export { createPoolSet, getPoolSet, poolFor, type PoolSet, type PoolSetOptions } from './poolSet';
