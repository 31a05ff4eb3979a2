import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { makeCollectorDescription } from './collectorDescription';
import type { CollectableResult, CollectorSpec } from './collectorSpec';
import { runCollector } from './runCollector';

/**
 * Make a collector node type for one job kind: inputs 1–10 like n8n's Merge v3, Failure Mode,
 * the binary field, a Report output and error-output support; the spec says how a result
 * becomes a binary and what a failed slot gets.
 */
export function makeConcurrentCollector<Result extends CollectableResult>(
	spec: CollectorSpec<Result>,
): new () => INodeType {
	const description = makeCollectorDescription(spec);

	return class ConcurrentCollector implements INodeType {
		description = description;

		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await runCollector(this, spec);
		}
	};
}
