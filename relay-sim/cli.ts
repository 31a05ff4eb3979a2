/**
 * Command line: npm run relay-sim -- --port 8787 --latency 2000 [--jitter 500] [--seed 1]
 *   [--max-active 24] [--retry-after 1] [--api-key K] [--image-size 512x512] [--image-bytes 4194304]
 *   [--host 127.0.0.1]
 * Prints the URL and key, stays up until SIGINT/SIGTERM, then prints a summary of the log.
 */
import { DEFAULT_IMAGE_SIDE } from './png';
import { startRelaySimulator } from './server';
import type { LatencySpec, RelaySimOptions } from './types';

const HELP = `relay-sim: a local FLUX relay / BFL API simulator

  --port N          port (default 0 = random)
  --host H          listen address (default 127.0.0.1)
  --latency MS      submit → Ready time per task (default 0)
  --jitter MS       latency varies uniformly in [latency - jitter, latency + jitter]
  --seed S          seed for the jitter (default 0)
  --max-active N    active-task cap; beyond it submit answers 429 + Retry-After
  --max-active-video N  active flux-3-video tasks, counted apart from images (default 5, like BFL)
  --video-bytes N   pad generated MP4 clips to N bytes (streamed), e.g. 52428800 for 50 MB
  --retry-after S   Retry-After seconds for the cap (default 1)
  --api-key K       accepted key (Bearer for relay, x-key for bfl)
  --image-size WxH  one size for every generated picture (default: by Resolution and Aspect Ratio, scaled down; 1k is 512x512)
  --image-bytes N   pad generated PNGs to about N bytes
  --no-credits      answer 404 on /credits, like a relay that does not serve it
  --unknown-task-404  answer a poll for an unknown task id with 404 + JSON
  --no-cost         never report cost (a relay that does not); by default an image's submit
                    answer and a clip's finished poll carry it (relay-sim/prices.ts)
`;

const NUMERIC = new Set(['port', 'latency', 'jitter', 'max-active', 'max-active-video', 'retry-after', 'image-bytes', 'video-bytes']);
/** Flags without a value. */
const SWITCHES = new Set(['no-credits', 'unknown-task-404', 'no-cost']);

export function parseArgs(argv: readonly string[]): RelaySimOptions {
	const flags = new Map<string, string>();
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--help' || arg === '-h') throw new UsageError('');
		if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
		const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
		if (SWITCHES.has(name) && inline === undefined) {
			flags.set(name, 'true');
			continue;
		}
		if (!['host', 'api-key', 'seed', 'image-size', ...NUMERIC].includes(name)) throw new UsageError(`unknown flag --${name}`);
		const value = inline ?? argv[++i];
		if (value === undefined) throw new UsageError(`--${name} needs a value`);
		if (NUMERIC.has(name) && !(Number.isFinite(Number(value)) && Number(value) >= 0)) {
			throw new UsageError(`--${name} must be a non-negative number`);
		}
		flags.set(name, value);
	}
	const num = (name: string) => (flags.has(name) ? Number(flags.get(name)) : undefined);
	const latency = num('latency') ?? 0;
	const jitter = num('jitter') ?? 0;
	const latencyMs: LatencySpec = jitter > 0
		? { min: Math.max(0, latency - jitter), max: latency + jitter, seed: flags.get('seed') ?? 0 }
		: latency;
	return {
		port: num('port') ?? 0,
		host: flags.get('host'),
		apiKey: flags.get('api-key'),
		latencyMs,
		maxActiveTasks: num('max-active'),
		...(flags.has('max-active-video') ? { maxActiveVideoTasks: num('max-active-video') } : {}),
		videoBytes: num('video-bytes'),
		retryAfterSeconds: num('retry-after'),
		imageBytes: num('image-bytes'),
		imageSize: flags.has('image-size') ? parseImageSize(flags.get('image-size')!) : undefined,
		...(flags.has('no-credits') ? { creditsRoute: false } : {}),
		...(flags.has('unknown-task-404') ? { unknownTask404: true } : {}),
		...(flags.has('no-cost') ? { reportCost: false } : {}),
	};
}

function parseImageSize(value: string): { width: number; height: number } {
	const match = /^(\d{1,5})x(\d{1,5})$/.exec(value);
	const [width, height] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
	if (!(width >= 1 && width <= 16384 && height >= 1 && height <= 16384)) {
		throw new UsageError(`--image-size must be WIDTHxHEIGHT, each 1..16384 (e.g. 512x512), got ${value}`);
	}
	return { width, height };
}

class UsageError extends Error {}

async function main(): Promise<void> {
	let options: RelaySimOptions;
	try {
		options = parseArgs(process.argv.slice(2));
	} catch (err) {
		if (!(err instanceof UsageError)) throw err;
		if (err.message) console.error(`relay-sim: ${err.message}\n`);
		console.error(HELP);
		process.exit(err.message ? 2 : 0);
	}
	const sim = await startRelaySimulator(options);
	console.log(`relay-sim listening on ${sim.url}`);
	console.log(`  API key   ${sim.apiKey}`);
	console.log(`  relay     base URL ${sim.url}  (Authorization: Bearer <key>, POST /bfl/v1/flux-3-image)`);
	console.log(`  bfl       base URL ${sim.url}  (x-key: <key>, POST /v1/flux-3-image)`);
	console.log(`  latency   ${JSON.stringify(options.latencyMs)} ms, max active ${options.maxActiveTasks ?? 'unlimited'}, video max active ${options.maxActiveVideoTasks ?? 5}`);
	console.log(`  video     POST …/flux-3-video, MP4 clips carrying the prompt${options.videoBytes ? `, padded to ${options.videoBytes} bytes` : ''}`);
	const size = options.imageSize
		? `${options.imageSize.width}×${options.imageSize.height}`
		: `by Resolution and Aspect Ratio, scaled down (1k 1:1: ${DEFAULT_IMAGE_SIDE}×${DEFAULT_IMAGE_SIDE})`;
	console.log(`  images    ${size}; pattern and colours from the prompt, its words written across the top, the prompt in a tEXt chunk`);
	console.log(`  cost      ${options.reportCost === false ? 'not reported (--no-cost)' : 'credits per relay-sim/prices.ts: images 3–16 by resolution (submit answer), clips 10/17 per second (finished poll), drafts a third'}`);
	console.log('Ctrl-C to stop.');

	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		const { log } = sim;
		console.log(
			`\n${signal}: ${log.submits.length} submits, ${log.tasks.size} tasks, ${log.polls} polls, ` +
				`${log.downloads} downloads, peak active ${log.peakActiveTasks}, peak concurrent requests ${log.peakConcurrentRequests}, ${log.charged} credits charged` +
				(log.credentialOnDownload ? ', WARNING: a credential reached /files/' : ''),
		);
		await sim.close();
		process.exit(0);
	};
	process.once('SIGINT', () => void stop('SIGINT'));
	process.once('SIGTERM', () => void stop('SIGTERM'));
	// `npm run` does not always forward signals to its child: stop too when orphaned.
	const parent = process.ppid;
	setInterval(() => {
		if (process.ppid !== parent) void stop('parent exited');
	}, 1000).unref();
}

if (require.main === module) {
	main().catch((err: unknown) => {
		console.error(err);
		process.exit(1);
	});
}
