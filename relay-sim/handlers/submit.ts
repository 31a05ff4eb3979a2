/** POST /bfl/v1/flux-3-image|flux-3-video (relay, Bearer) and POST /v1/flux-3-image|flux-3-video (bfl, x-key). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from '../context';
import { BodyTooLargeError, checkAuth, readBody, retryHeaders, sendError, sendJson } from '../http';
import { increment } from '../log';
import { simCost } from '../prices';
import type { TaskModel } from '../tasks';
import type { ApiStyle } from '../types';
import { simulatedImageSize } from '../imageSize';
import { validateFlux2Submit, validateSubmit, validateVideoSubmit } from '../validate';

const AMBIGUOUS = new Set([500, 502, 504]);

/** `endpoint`: a FLUX.2 model's (validated as such, priced by its list price); absent: flux-3-image or flux-3-video by `model`. */
export async function handleSubmit(ctx: SimContext, req: IncomingMessage, res: ServerResponse, style: ApiStyle, model: TaskModel = 'image', endpoint?: string): Promise<void> {
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
	const validation = endpoint ? validateFlux2Submit(raw, endpoint) : model === 'video' ? validateVideoSubmit(raw) : validateSubmit(raw);
	const parsed = validation.parsed as { prompt?: unknown } | undefined;
	const prompt = typeof parsed?.prompt === 'string' ? parsed.prompt : '';
	const cost = simCost(model, validation.parsed, endpoint);
	const record = (status: number, taskId?: string) => {
		ctx.log.submits.push({ prompt, model, taskId, status, at: ctx.now(), style, body: validation.parsed, ...(endpoint ? { endpoint } : {}) });
		increment(ctx.log.submitsByPrompt, prompt);
	};

	if (!checkAuth(ctx, req, res, style)) return record(401);
	if (!validation.ok) {
		sendError(res, validation.status, validation.message);
		return record(validation.status);
	}

	if (answerSubmitFault(ctx, req, res, { prompt, style, model, cost, record })) return;

	const max = model === 'video' ? ctx.settings.maxActiveVideoTasks : ctx.settings.maxActiveTasks;
	if (max !== undefined && ctx.tasks.activeCount(model === 'video' ? 'video' : undefined) >= max) {
		const seconds = ctx.settings.retryAfterSeconds;
		sendError(res, 429, `Too many active tasks (limit ${max}); retry later`, { 'Retry-After': String(seconds) });
		return record(429);
	}

	const jpeg = (validation.parsed as { output_format?: unknown }).output_format === 'jpeg' && endpoint !== undefined;
	const task = ctx.tasks.create(prompt, style, model, { cost, imageSize: model === 'image' && validation.ok ? simulatedImageSize(validation.body) : undefined, jpeg });
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
