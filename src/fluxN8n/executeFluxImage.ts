import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { JobContext } from '../pool';
import { toNodeError } from '../n8n/nodeErrors';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import { prepareFluxImageJob, runFluxImageJob } from './fluxImageSource';

/**
 * The serial FLUX 3 Image node: every input item is generated in turn and
 * becomes one item with the image as binary `data`.
 */
export async function executeFluxImage(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const signal = ctx.getExecutionCancelSignal() ?? new AbortController().signal;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const pairedItem = { item: itemIndex };
		try {
			const job = await prepareFluxImageJob(ctx, itemIndex);
			let attempts = 0;
			const context: JobContext = { jobId: `serial-${ctx.getExecutionId()}-${itemIndex}`, signal, setAttempts: (n) => (attempts = n) };
			const startedAt = Date.now();
			const result = await runFluxImageJob(job, context);
			const finishedAt = Date.now();
			const binary = await ctx.helpers.prepareBinaryData(
				result.buffer,
				`flux-${result.taskId ?? itemIndex}.${result.fileExtension}`,
				result.mimeType,
			);
			const json: IDataObject = {
				status: result.outcome,
				cached: result.cached,
				...(result.taskId ? { taskId: result.taskId } : {}),
				...(result.error ? { error: result.error, errorKind: result.errorKind } : {}),
				attempts,
				timings: {
					startedAt: new Date(startedAt).toISOString(),
					finishedAt: new Date(finishedAt).toISOString(),
					runMs: finishedAt - startedAt,
				},
			};
			output.push({ json, binary: { data: binary }, pairedItem });
		} catch (error) {
			const nodeError = toNodeError(ctx.getNode(), error, itemIndex, FLUX_ERROR_HINTS);
			if (!ctx.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem });
		}
	}
	return [output];
}
