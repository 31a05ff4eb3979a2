/**
 * A child process of the scale-out scenario (bench/scenarios/scaleOut.ts): waits for one `run` message,
 * runs that many FLUX image jobs at once (src/flux generateImage, each admitted by the account limiter on
 * the given Redis), answers `{ startedAt, finishedAt, failed }` and exits.
 */
import { accountId } from '../src/account';
import { createAccountLimiter, limitName } from '../src/accountLimit';
import { readRedisTarget } from '../src/config';
import { closeFluxAgent, generateImage } from '../src/flux';
import { SharedRedis } from '../src/redis';
import { flux3Image } from '../src/models';

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
	const warn = (m: string) => process.stderr.write(`${m}\n`);
	const redis = new SharedRedis(readRedisTarget({ COMFLY_REDIS_URL: msg.redisUrl })!, { warn });
	const limiter = createAccountLimiter(redis, { warn });
	const creds = { apiStyle: 'relay' as const, baseUrl: msg.simUrl, apiKey: msg.apiKey };
	const name = limitName(accountId(creds), 'flux-3-image');
	const startedAt = Date.now();
	const outcomes = await Promise.allSettled(
		Array.from({ length: msg.jobs }, (_, i) =>
			generateImage(
				creds,
				{ model: flux3Image, prompt: `${msg.prefix} ${i}`, values: { resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2 }, images: [] },
				{ admission: limiter.admission(name, msg.limit) },
			),
		),
	);
	const finishedAt = Date.now();
	await redis.close();
	await closeFluxAgent();
	return { type: 'done', startedAt, finishedAt, failed: outcomes.filter((o) => o.status === 'rejected').length };
}

process.on('message', (msg: ScaleOutRun) => {
	if (msg.type !== 'run') return;
	void run(msg).then((done) => process.send?.(done, () => process.exit(0)));
});
process.send?.({ type: 'ready' });
