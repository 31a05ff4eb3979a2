import type { IExecuteFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';

import type { ErrorHints } from '../n8n/nodeErrors';
import type { JobContext, JobKind } from '../pool';

/**
 * What a serial node offers so that a concurrent twin can be made of it:
 * its description, the kind of output it makes (which picks the pool), and
 * its work split in two — `prepare` reads and validates one item's parameters
 * inside n8n, `run` does the slow work anywhere, given only what `prepare` made.
 */
export interface ConcurrentSource<Prepared, Result> {
	description: INodeTypeDescription;
	outputKind: JobKind;
	/** Read and validate item `itemIndex`; throws NodeOperationError naming field and item. */
	prepare(ctx: IExecuteFunctions, itemIndex: number): Promise<Prepared>;
	/** Do the job. Must honour `job.signal`. */
	run(prepared: Prepared, job: JobContext): Promise<Result>;
	/** Bytes a result keeps in memory while it waits to be collected. */
	sizeOf(result: Result): number;
	/** The model name written into task items. */
	model: string;
	/** Descriptions for the node errors of this source's failures, by error `kind` or `code`. */
	errorHints?: ErrorHints;
	/** The serial node's methods (credential tests, option loaders); the twin shares them. */
	methods?: INodeType['methods'];
}
