import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { z } from 'zod';

import { MAX_INPUTS } from './collectorDescription';

const collectorParametersSchema = z.object({
	numberInputs: z.number().int().min(1).max(MAX_INPUTS),
	failureMode: z.enum(['failFast', 'placeholder']),
	binaryPropertyName: z.string().trim().min(1, 'must not be empty'),
});

/** The collector's parameters, checked once. */
export type CollectorParameters = z.infer<typeof collectorParametersSchema>;

/** Read and check the collector's parameters; an error names the field. */
export function readCollectorParameters(ctx: IExecuteFunctions): CollectorParameters {
	const raw = {
		numberInputs: ctx.getNodeParameter('numberInputs', 0, 1),
		failureMode: ctx.getNodeParameter('failureMode', 0, 'failFast'),
		binaryPropertyName: ctx.getNodeParameter('binaryPropertyName', 0, 'data'),
	};
	const parsed = collectorParametersSchema.safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new NodeOperationError(ctx.getNode(), `Invalid parameter '${issue.path.join('.')}': ${issue.message}`);
	}
	return parsed.data;
}
