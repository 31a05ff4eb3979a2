/** GET /bfl/v1/get_result?id= (relay, Bearer) and GET /v1/get_result?id= (bfl, x-key, the polling_url). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { checkAuth, retryHeaders, sendError, sendJson } from '../http';
import { increment } from '../log';
import type { Task } from '../tasks';
import type { ApiStyle } from '../types';

export function handlePoll(ctx: SimContext, req: IncomingMessage, res: ServerResponse, style: ApiStyle, url: URL): void {
	if (!checkAuth(ctx, req, res, style)) return;
	const id = url.searchParams.get('id');
	if (!id) return sendError(res, 422, 'query parameter id is required');
	ctx.log.polls++;
	ctx.log.pollTimes.push(ctx.now());
	increment(ctx.log.pollsByTask, id);

	const task = ctx.tasks.byId.get(id);
	if (!task) {
		if (ctx.settings.unknownTask404) return sendError(res, 404, 'Task not found');
		return sendJson(res, 200, { id, status: 'Task not found', result: null, progress: null });
	}

	const fault = ctx.faults.pollStatus(task.prompt, task.id);
	if (fault) {
		const headers = retryHeaders(fault.status, fault.retryAfter ?? ctx.settings.retryAfterSeconds);
		return sendJson(res, fault.status, fault.body ?? { detail: `Simulated HTTP ${fault.status}` }, headers);
	}

	const view = ctx.tasks.poll(task);
	if (view.state === 'progress') return sendJson(res, 200, { id, status: view.status, result: null, progress: view.progress });
	if (view.state === 'pending') return sendJson(res, 200, { id, status: 'Pending', result: null, progress: view.progress });
	if (view.status !== 'Ready') {
		const details = view.status === 'Error' ? { error: 'Simulated generation failure' } : null;
		return sendJson(res, 200, { id, status: view.status, result: null, progress: null, details });
	}
	const sample = fileUrl(ctx, task, task.model === 'video' ? 'mp4' : task.jpeg ? 'jpg' : 'png');
	// A draft also carries its cache; newer answers list both (the singular keys hold the first).
	const draft = task.draft ? { draft_cache: fileUrl(ctx, task, 'draft'), samples: [sample], draft_caches: [fileUrl(ctx, task, 'draft')] } : {};
	sendJson(res, 200, {
		id,
		status: 'Ready',
		result: {
			sample,
			...draft,
			prompt: task.prompt,
			seed: 0,
			start_time: task.createdAt / 1000,
			end_time: view.readyAt / 1000,
			duration: (view.readyAt - task.createdAt) / 1000,
		},
		progress: null,
		details: null,
		// BFL style: FLUX 3 Video reports its cost on the finished poll (images did with the submit answer).
		...(ctx.settings.reportCost && task.model === 'video' ? { cost: task.cost } : {}),
	});
}

/** A signed-URL look-alike: /files/<id>.<ext>?se=<expiry>&sp=r&sig=<random>, valid signedUrlTtlMs from the first Ready answer. */
function fileUrl(ctx: SimContext, task: Task, ext: 'png' | 'jpg' | 'mp4' | 'draft'): string {
	task.sampleExpiresAt ??= ctx.now() + ctx.settings.signedUrlTtlMs;
	const query = new URLSearchParams({
		se: new Date(task.sampleExpiresAt).toISOString(),
		sp: 'r',
		sv: '2021-08-06',
		sr: 'b',
		sig: task.sig,
	});
	return `${ctx.url}/files/${task.id}.${ext}?${query.toString()}`;
}
