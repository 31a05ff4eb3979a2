/**
 * A child process of the scale-out scenario (bench/scenarios/scaleOut.ts): waits for one `run` message,
 * runs that many FLUX image jobs at once (src/flux generateImage, each admitted by the account limiter on
 * the given Redis), answers `{ startedAt, finishedAt, failed }` and exits.
 */
import { accountKey, createAccountLimiter } from '../src/accountLimit';
import { closeFluxAgent, generateImage } from '../src/flux';

export interface ScaleOutRun {
	type: 'run';
	simUrl: string;
	apiKey: string;
	redisUrl: string;
	limit: number;
	jobs: number;
	prefix: string;
}

export interface ScaleOutDone {
	type: 'done';
	startedAt: number;
	finishedAt: number;
	failed: number;
}

async function run(msg: ScaleOutRun): Promise<ScaleOutDone> {
	const built = createAccountLimiter({ COMFLY_REDIS_URL: msg.redisUrl }, { warn: (m) => process.stderr.write(`${m}\n`), info: () => undefined });
	const creds = { apiStyle: 'relay' as const, baseUrl: msg.simUrl, apiKey: msg.apiKey };
	const name = accountKey(msg.apiKey, 'flux-3-image');
	const startedAt = Date.now();
	const outcomes = await Promise.allSettled(
		Array.from({ length: msg.jobs }, (_, i) =>
			generateImage(
				creds,
				{ prompt: `${msg.prefix} ${i}`, resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, images: [] },
				{ admission: built.limiter.admission(name, msg.limit) },
			),
		),
	);
	const finishedAt = Date.now();
	await built.close();
	await closeFluxAgent();
	return { type: 'done', startedAt, finishedAt, failed: outcomes.filter((o) => o.status === 'rejected').length };
}

process.on('message', (msg: ScaleOutRun) => {
	if (msg.type !== 'run') return;
	void run(msg).then((done) => process.send?.(done, () => process.exit(0)));
});
process.send?.({ type: 'ready' });
