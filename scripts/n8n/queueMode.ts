/**
 * n8n in queue mode for the end-to-end tests: one main (`n8n start`, which takes webhooks and enqueues
 * executions) and `n8n worker` processes (which run them), all on one scratch home (one user folder,
 * so one SQLite database and one binary-data folder) and one Redis given by the caller. Facts (n8n
 * 2.0.3, verified here): queue mode needs `EXECUTIONS_MODE=queue` and `QUEUE_BULL_REDIS_HOST`/`PORT`;
 * SQLite in a shared user folder is enough on one host; every process needs its own
 * `N8N_RUNNERS_BROKER_PORT`, every worker its own `QUEUE_HEALTH_CHECK_PORT`; a worker is ready once it
 * logs "n8n worker is now ready", and logs "Worker started execution <id>" for each execution it runs.
 */
import { getFreePort, n8nCommandLine, type LogFn, type N8nHome } from './index';
import { startN8nServer, type N8nServer } from './n8nServer';
import { spawnLongRunning } from './processes';

export interface N8nWorker {
	label: string;
	output(): string;
	/** Ids of the executions this worker started (from its log). */
	executionIds(): string[];
	stop(): Promise<void>;
}

export interface QueueModeCluster {
	main: N8nServer;
	workers: N8nWorker[];
	stop(): Promise<void>;
}

export interface QueueModeOptions {
	/** The Redis n8n queues through (and this package shares its limits through). */
	redis: { host: string; port: number };
	/** Worker processes (default 2). */
	workers?: number;
	/** Executions a worker runs at once (`--concurrency`, default 5). */
	concurrency?: number;
	/** Extra environment for every process. */
	env?: Record<string, string>;
	timeoutMs?: number;
	log?: LogFn;
}

/** n8n's queue-mode settings for a Redis. */
export function queueModeEnv(redis: { host: string; port: number }): Record<string, string> {
	return { EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_HOST: redis.host, QUEUE_BULL_REDIS_PORT: String(redis.port) };
}

/** Starts `n8n worker` and resolves once it is ready to take executions. */
export async function startN8nWorker(home: N8nHome, label: string, opts: Omit<QueueModeOptions, 'workers'>): Promise<N8nWorker> {
	const env = {
		...home.env,
		...queueModeEnv(opts.redis),
		N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
		QUEUE_HEALTH_CHECK_PORT: String(await getFreePort()),
		REAL_N8N_PARENT_PID: String(process.pid),
		...(opts.env ?? {}),
	};
	// The home's n8n version on its own Node (scripts/n8n/versions.ts).
	const line = n8nCommandLine(home, ['worker', `--concurrency=${opts.concurrency ?? 5}`]);
	const proc = spawnLongRunning(line.command, line.args, { cwd: home.dir, env });
	const { child, output } = proc;
	const worker: N8nWorker = {
		label,
		output,
		executionIds: () => [...output().matchAll(/Worker started execution (\S+)/g)].map((m) => m[1]),
		stop: () => proc.stop(15_000),
	};
	const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
	while (!/n8n worker is now ready/.test(output())) {
		if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
			await worker.stop();
			throw new Error(`n8n worker ${label} did not become ready:\n${output().slice(-3000)}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	opts.log?.(`n8n worker ${label}: ready`);
	return worker;
}

/** Starts the main, then the workers (in parallel); stops whatever started if one fails. */
export async function startQueueMode(home: N8nHome, opts: QueueModeOptions): Promise<QueueModeCluster> {
	const env = { ...queueModeEnv(opts.redis), ...(opts.env ?? {}) };
	const main = await startN8nServer(home, { env, timeoutMs: opts.timeoutMs, log: opts.log });
	const started = await Promise.allSettled(
		Array.from({ length: opts.workers ?? 2 }, (_, i) => startN8nWorker(home, `w${i + 1}`, { ...opts, env })),
	);
	const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
	const stop = async () => {
		await Promise.all(workers.map((w) => w.stop()));
		await main.stop();
	};
	const failed = started.find((s) => s.status === 'rejected');
	if (failed) {
		await stop();
		throw (failed as PromiseRejectedResult).reason;
	}
	return { main, workers, stop };
}
