export type { CollectableResult, CollectorIdentity, CollectorSpec, SlotFiles, UnknownTask } from './collectorSpec';
export { configuredInputs, MAX_INPUTS } from './collectorDescription';
export { makeConcurrentCollector } from './runCollector';
export type { CollectReport, SlotReportRow } from './report';
export type { SlotOutcome, SlotStatus } from './waitForSlots';
