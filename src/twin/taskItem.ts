import { z } from 'zod';

/** The value of `json.type` that marks an item as a concurrent task. */
export const TASK_ITEM_TYPE = 'n8n-nodes-flux-concurrent.task';

const taskItemSchema = z.object({
	type: z.literal(TASK_ITEM_TYPE),
	version: z.literal(1),
	jobId: z.string().min(1),
	kind: z.enum(['image', 'video']),
	model: z.string(),
	node: z.string(),
	submittedAt: z.string(),
});

/**
 * A task whose item failed at the submit node ("On Error: Continue"): the task
 * marker with the reason and no job. It reaches the collector as a failed slot.
 */
const failedTaskItemSchema = taskItemSchema.omit({ jobId: true, submittedAt: true }).extend({ error: z.string() }).strict();

/** A task item's JSON: a handle on a job in the pool. It never carries secrets. */
export type TaskItemJson = z.infer<typeof taskItemSchema>;

/** A failed task item's JSON: `error` is the submit node's (redacted) message; no job exists. */
export type FailedTaskItemJson = z.infer<typeof failedTaskItemSchema>;

export function makeTaskItemJson(fields: Omit<TaskItemJson, 'type' | 'version' | 'submittedAt'> & { submittedAt: Date }): TaskItemJson {
	return { type: TASK_ITEM_TYPE, version: 1, ...fields, submittedAt: fields.submittedAt.toISOString() };
}

/** The item a submit node emits for an item it could not submit, under "On Error: Continue". */
export function makeFailedTaskItemJson(fields: Omit<FailedTaskItemJson, 'type' | 'version'>): FailedTaskItemJson {
	return { type: TASK_ITEM_TYPE, version: 1, kind: fields.kind, model: fields.model, node: fields.node, error: fields.error };
}

/** The task in an item's JSON, or undefined when the item is not a task. */
export const readTaskItemJson = (json: unknown): TaskItemJson | undefined => taskItemSchema.safeParse(json).data;

/** The failed task in an item's JSON, or undefined when the item is not a failed task. */
export const readFailedTaskItemJson = (json: unknown): FailedTaskItemJson | undefined => failedTaskItemSchema.safeParse(json).data;
