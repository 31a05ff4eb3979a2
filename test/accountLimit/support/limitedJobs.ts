/**
 * A child process for the shared-limit tests: runs `jobs` FLUX image jobs at once (src/flux generateImage,
 * each admitted by an account limiter on Redis built from COMFLY_REDIS_URL, as the glue builds it) against
 * the simulator, then prints one JSON line `{ succeeded, failed, errors, shared }` and exits. Few modules on
 * purpose: the child starts fast also on a loaded machine. Argument: a JSON object
 * { simUrl, apiKey, redisUrl, limit, jobs, prefix, ttlMs, refreshMs }.
 */
import { accountId } from '../../../src/account';
import { createAccountLimiter, limitName } from '../../../src/accountLimit';
import { sharedRedisAt } from '../../redis/sharedRedisAt';
import { closeFluxAgent, generateImage } from '../../../src/flux';
import { requestFor } from '../../flux/helpers';

interface Args {
	simUrl: string;
	apiKey: string;
	redisUrl: string;
	limit: number;
	jobs: number;
	prefix: string;
	ttlMs: number;
	refreshMs: number;
}


async function main(): Promise<void> {
	const args = JSON.parse(process.argv[2] ?? '{}') as Args;
	const warn = (m: string) => process.stderr.write(`warn: ${m}\n`);
	const redis = sharedRedisAt(args.redisUrl, { warn });
	const limiter = createAccountLimiter(redis, { warn, leaseTiming: { ttlMs: args.ttlMs, refreshMs: args.refreshMs, retryIntervalMs: 25 } });
	const credentials = { apiStyle: 'relay' as const, baseUrl: args.simUrl, apiKey: args.apiKey };
	const name = limitName(accountId(credentials), 'flux-3-image');
	const outcomes = await Promise.allSettled(
		Array.from({ length: args.jobs }, (_, i) =>
			generateImage(credentials, requestFor(`${args.prefix} job ${i}`), { admission: limiter.admission(name, args.limit), timeoutMs: 240_000 }),
		),
	);
	const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error)?.message ?? o.reason)] : []));
	process.stdout.write(`${JSON.stringify({ succeeded: args.jobs - errors.length, failed: errors.length, errors, shared: limiter.shared() })}\n`);
	await redis.close();
	await closeFluxAgent();
}

main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
