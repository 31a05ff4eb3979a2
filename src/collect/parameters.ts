import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { z } from 'zod';

import { isReservedName } from '../parameters/mediaSources';
import { MAX_INPUTS } from './collectorDescription';

const inputsMessage = `must be an integer from 1 to ${MAX_INPUTS}`;

const collectorParametersSchema = z.object({
	// Expressions may send digits as text.
	numberInputs: z.preprocess(
		(v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
		z.number({ invalid_type_error: inputsMessage }).int(inputsMessage).min(1, inputsMessage).max(MAX_INPUTS, inputsMessage),
	),
	failureMode: z.enum(['failFast', 'placeholder'], { errorMap: () => ({ message: 'must be failFast or placeholder' }) }),
	binaryPropertyName: z
		.string({ invalid_type_error: 'must be text' })
		.trim()
		.min(1, 'must not be empty')
		.refine((name) => !isReservedName(name), (name) => ({ message: `"${name}" is reserved in JavaScript: choose another name` })),
});

const LABELS: Record<string, string> = {
	numberInputs: 'Number of Inputs',
	failureMode: 'Failure Mode',
	binaryPropertyName: 'Put Output File in Field',
};

/** The collector's parameters, checked once. */
export type CollectorParameters = z.infer<typeof collectorParametersSchema>;

/** Read and check the collector's parameters; an error names the field as the editor shows it and the value it got. */
export function readCollectorParameters(ctx: IExecuteFunctions): CollectorParameters {
	const raw: Record<string, unknown> = {
		numberInputs: ctx.getNodeParameter('numberInputs', 0, 1),
		failureMode: ctx.getNodeParameter('failureMode', 0, 'failFast'),
		binaryPropertyName: ctx.getNodeParameter('binaryPropertyName', 0, 'data'),
	};
	const parsed = collectorParametersSchema.safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		const field = String(issue.path[0]);
		const got = JSON.stringify(raw[field]) ?? String(raw[field]);
		throw new NodeOperationError(ctx.getNode(), `Invalid parameter "${LABELS[field] ?? field}": ${issue.message} (got ${got.slice(0, 60)})`);
	}
	return parsed.data;
}
