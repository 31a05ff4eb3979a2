/** POST /bfl/v1/<model> (relay, Bearer) and POST /v1/<model> (bfl, x-key): flux-3-image, flux-3-video, the FLUX.2 models. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { BodyTooLargeError, checkAuth, readBody, retryHeaders, sendError, sendJson } from '../http';
import { increment } from '../log';
import type { DraftOrigin } from '../draftCache';
import { lookUpDraftCache } from '../draftCacheLookup';
import { simulatedImageSize } from '../imageSize';
import { simCost } from '../prices';
import type { TaskExtras, TaskModel } from '../tasks';
import type { ApiStyle } from '../types';
import { validateSubmit } from '../validate';

const AMBIGUOUS = new Set([500, 502, 504]);

/** A submit to `endpoint` (flux-3-image, flux-3-video or a FLUX.2 model's: validate.ts's SUBMIT_ENDPOINTS). */
export async function handleSubmit(ctx: SimContext, req: IncomingMessage, res: ServerResponse, style: ApiStyle, endpoint: string): Promise<void> {
	let raw: Buffer;
	try {
		raw = await readBody(req, ctx.settings.maxBodyBytes);
	} catch (err) {
		if (err instanceof BodyTooLargeError) {
			sendError(res, 413, err.message, { Connection: 'close' });
			return;
		}
		throw err;
	}
	const model: TaskModel = endpoint === 'flux-3-video' ? 'video' : 'image';
	const flux2 = model === 'image' && endpoint !== 'flux-3-image';
	const validation = validateSubmit(raw, endpoint, (value) => {
		const found = lookUpDraftCache(ctx, value);
		return 'problem' in found ? found : { prompt: found.prompt };
	});
	const fields = (validation.ok ? validation.body : {}) as Record<string, unknown>;
	const enhancing = typeof fields.draft_cache === 'string' ? (lookUpDraftCache(ctx, fields.draft_cache) as DraftOrigin) : undefined;
	const parsed = validation.parsed as { prompt?: unknown } | undefined;
	const prompt = enhancing?.prompt ?? (typeof parsed?.prompt === 'string' ? parsed.prompt : '');
	const cost = simCost(endpoint, validation.parsed, enhancing);
	const record = (status: number, taskId?: string) => {
		ctx.log.submits.push({ prompt, model, taskId, status, at: ctx.now(), style, body: validation.parsed, ...(flux2 ? { endpoint } : {}) });
		increment(ctx.log.submitsByPrompt, prompt);
	};

	if (!checkAuth(ctx, req, res, style)) return record(401);
	if (!validation.ok) {
		sendJson(res, validation.status, { detail: validation.detail });
		return record(validation.status);
	}

	if (answerSubmitFault(ctx, req, res, { prompt, style, model, cost, record })) return;

	const max = model === 'video' ? ctx.settings.maxActiveVideoTasks : ctx.settings.maxActiveTasks;
	if (max !== undefined && ctx.tasks.activeCount(model === 'video' ? 'video' : undefined) >= max) {
		const seconds = ctx.settings.retryAfterSeconds;
		sendError(res, 429, `Too many active tasks (limit ${max}); retry later`, { 'Retry-After': String(seconds) });
		return record(429);
	}

	const task = ctx.tasks.create(prompt, style, model, { cost, ...taskExtras(endpoint, fields, enhancing) });
	const pollingHost = ctx.faults.pollingUrlHost(prompt);
	const ownPollingUrl = `http://${pollingHost ? `${pollingHost}:${ctx.port}` : ctx.hostHeader}/v1/get_result?id=${task.id}`;
	// BFL style: an image's cost comes with the submit answer, a clip's with the finished poll (null here).
	const costField = ctx.settings.reportCost ? { cost: model === 'video' ? null : cost } : {};
	if (style === 'bfl') {
		sendJson(res, 200, { id: task.id, polling_url: ownPollingUrl, ...costField, ...(ctx.settings.reportCost && model === 'image' ? { input_mp: 0, output_mp: 1 } : {}) });
	} else {
		// A relay may echo the upstream polling_url; it needs a BFL key (x-key), so clients must ignore it.
		sendJson(res, 200, { id: task.id, polling_url: `${ctx.url}/v1/get_result?id=${task.id}`, ...costField });
	}
	record(200, task.id);
}

/** What the task of an accepted body is beyond its prompt: a picture's size and type, a draft, an enhancement. */
function taskExtras(endpoint: string, fields: Record<string, unknown>, enhancing: DraftOrigin | undefined): TaskExtras {
	if (endpoint === 'flux-3-image') return { imageSize: simulatedImageSize(fields) };
	if (endpoint !== 'flux-3-video') return fields.output_format === 'jpeg' ? { jpeg: true } : {};
	if (enhancing) return { enhancedFrom: enhancing.task };
	if (fields.draft !== true) return {};
	const duration = typeof fields.duration === 'number' ? fields.duration : 'auto';
	return { draft: { prompt: String(fields.prompt), duration, resolution: typeof fields.resolution === 'string' ? fields.resolution : 'hd' } };
}

/** Answers a submit by its configured fault (status, reset, hang), if one applies; false: no fault. */
function answerSubmitFault(
	ctx: SimContext,
	req: IncomingMessage,
	res: ServerResponse,
	submit: { prompt: string; style: ApiStyle; model: TaskModel; cost: number; record: (status: number, taskId?: string) => void },
): boolean {
	const { prompt, style, model, cost, record } = submit;
	const action = ctx.faults.submitAction(prompt);
	if (action?.kind === 'status') {
		const { fault } = action;
		const created = fault.createTask ?? AMBIGUOUS.has(fault.status);
		const task = created ? ctx.tasks.create(prompt, style, model, { cost }) : undefined;
		const headers = retryHeaders(fault.status, fault.retryAfter ?? ctx.settings.retryAfterSeconds);
		sendJson(res, fault.status, fault.body ?? { detail: `Simulated HTTP ${fault.status}` }, headers);
		record(fault.status, task?.id);
		return true;
	}
	if (action?.kind === 'reset') {
		// The request was read and the task exists: a client cannot know whether it was accepted.
		const task = ctx.tasks.create(prompt, style, model, { cost });
		record(0, task.id);
		req.socket.destroy();
		return true;
	}
	if (action?.kind === 'hang') {
		const task = ctx.tasks.create(prompt, style, model, { cost });
		record(-1, task.id);
		return true; // never answered; close() destroys the socket
	}
	return false;
}
