/**
 * The acknowledgement step of a submit (submitSteps.ts): a 2xx answer's body → the upstream task (its id, BFL's
 * polling URL) and the cost it reported (`rt.cost`). An answer without a readable task id is `maybe_submitted`.
 */
import { z } from 'zod';
import { parseJson } from './body';
import type { JobRuntime } from './job';
import type { FluxTask } from './submit';
import { MAYBE_SUBMITTED_NOTE } from './statusTable';

/** Submit response (lenient: extra fields pass through). */
export const submitResponseSchema = z
	.object({
		id: z.string().min(1),
		polling_url: z.string().optional().nullable(),
		cost: z.number().optional().nullable(),
	})
	.passthrough();

export function parseAcknowledgement(rt: JobRuntime, status: number, text: string): FluxTask {
	const json = parseJson(text);
	if (json === undefined) throw rt.error('maybe_submitted', `FLUX submit answered ${status} with invalid JSON: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
	const parsed = submitResponseSchema.safeParse(json);
	if (!parsed.success) {
		throw rt.error('maybe_submitted', `FLUX submit answered ${status} without a task id: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
	}
	const task: FluxTask = { taskId: parsed.data.id };
	if (typeof parsed.data.cost === 'number' && Number.isFinite(parsed.data.cost) && parsed.data.cost >= 0) rt.cost = parsed.data.cost;
	if (typeof parsed.data.polling_url === 'string' && parsed.data.polling_url !== '') task.pollingUrl = parsed.data.polling_url;
	return task;
}
