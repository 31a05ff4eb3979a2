/**
 * A child process for the shared-limit tests: runs `jobs` FLUX image jobs at once through the glue
 * (obtainFluxImage, so through the process-wide account limiter on Redis) against the simulator, then
 * prints one JSON line `{ succeeded, failed, errors, shared }` and exits. Argument: a JSON object
 * { simUrl, apiKey, redisUrl, limit, jobs, prefix, ttlMs, refreshMs, storeDir }.
 */
import { createAccountLimiter } from '../../../src/accountLimit';
import { closeFluxAgent, type FluxImageRequest } from '../../../src/flux';
import { fluxJobIdentity } from '../../../src/fluxN8n/fluxJobKey';
import type { PreparedFluxImageJob } from '../../../src/fluxN8n/prepareFluxImageJob';
import { obtainFluxImage } from '../../../src/fluxN8n/storedFluxImageJob';

interface Args {
	simUrl: string;
	apiKey: string;
	redisUrl: string;
	limit: number;
	jobs: number;
	prefix: string;
	ttlMs: number;
	refreshMs: number;
	storeDir: string;
}

function prepared(args: Args, prompt: string): PreparedFluxImageJob {
	const credentials = { apiStyle: 'relay' as const, baseUrl: args.simUrl, apiKey: args.apiKey };
	const request: FluxImageRequest = { prompt, resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, images: [] };
	return { credentials, request, skipError: false, timeoutMs: 120_000, maxDownloadBytes: 50 * 1024 * 1024, cacheMode: 'off', identity: fluxJobIdentity({}, credentials, request, 1) };
}

async function main(): Promise<void> {
	const args = JSON.parse(process.argv[2] ?? '{}') as Args;
	process.env.COMFLY_REDIS_URL = args.redisUrl;
	process.env.COMFLY_IMAGE_CONCURRENCY = String(args.limit);
	process.env.COMFLY_STORE_DIR = args.storeDir;
	const built = createAccountLimiter(process.env, {
		warn: (m) => process.stderr.write(`warn: ${m}\n`),
		info: () => undefined,
		leaseTiming: { ttlMs: args.ttlMs, refreshMs: args.refreshMs, retryIntervalMs: 25 },
	});
	(globalThis as Record<symbol, unknown>)[Symbol.for('n8n-nodes-flux-concurrent.accountLimiter')] = built;
	const outcomes = await Promise.allSettled(
		Array.from({ length: args.jobs }, (_, i) => obtainFluxImage(prepared(args, `${args.prefix} job ${i}`), { jobId: `${args.prefix}-${i}`, signal: new AbortController().signal, setAttempts: () => undefined })),
	);
	const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error)?.message ?? o.reason)] : []));
	process.stdout.write(`${JSON.stringify({ succeeded: args.jobs - errors.length, failed: errors.length, errors, shared: built.limiter.shared() })}\n`);
	await built.close();
	await closeFluxAgent();
}

main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exit(1);
});
