/**
 * Scenario 9, video: 10 clips of 50 MB each through FLUX 3 Video Concurrent Submit → Concurrent Collect Videos
 * in a fresh worker (filesystem binary data). Measures the worker's peak RSS growth against the 500 MB served
 * (clips stream to disk: growth must stay far below one clip per slot) and the makespan against the slowest
 * clip's own latency (all 10 generate at once: the simulator's video cap is raised to 10 for this row; with
 * BFL's 5 the batch would take two rounds by design).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startRelaySimulator } from '../../relay-sim';
import { log, mib, s, fixed } from '../format';
import type { Goal } from '../goal';
import type { Bench } from '../session';
import type { VideoWorkerResult, VideoWorkerTask } from '../videoWorker';

export const VIDEO_CLIPS = 10;
export const VIDEO_CLIP_BYTES = 50 * 1024 * 1024;
/** Goals: RSS growth below 2 clips' worth (never a clip per slot in memory); makespan ≥ 0.8 of the ideal. */
export const VIDEO_GROWTH_GOAL_BYTES = 2 * VIDEO_CLIP_BYTES;
export const VIDEO_EFFICIENCY_GOAL = 0.8;

export interface VideoRun {
	cache: 'refresh' | 'off';
	wallMs: number;
	slowestClipMs: number;
	efficiency: number;
	baselineRss: number;
	peakRss: number;
	growth: number;
	peakActiveVideoTasks: number;
	allSucceeded: boolean;
	allFullSize: boolean;
}

export interface VideoScenario {
	clips: number;
	clipBytes: number;
	payloadBytes: number;
	/** The default path (every clip streamed into the result store), then Cache: Off (no store) for comparison. */
	runs: VideoRun[];
}

function runWorker(task: VideoWorkerTask, storeDir: string): Promise<VideoWorkerResult> {
	const child = fork(path.join(__dirname, '..', 'videoWorker.ts'), [], {
		execArgv: ['-r', 'ts-node/register/transpile-only', '--expose-gc'],
		env: { ...process.env, COMFLY_STORE_DIR: storeDir, COMFLY_VIDEO_CONCURRENCY: String(VIDEO_CLIPS) },
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error('video worker timed out'));
		}, 300_000);
		child.on('message', (m: { ready?: true; ok?: boolean; result?: VideoWorkerResult; message?: string }) => {
			if (m.ready) return void child.send(task);
			clearTimeout(timer);
			if (m.ok && m.result) resolve(m.result);
			else reject(new Error(`video worker: ${m.message}`));
		});
		child.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`video worker exited (code ${code})`));
		});
	});
}

async function runOnce(bench: Bench, clipBytes: number, cache: VideoRun['cache']): Promise<VideoRun> {
	const latency = { min: bench.config.LATENCY.min, max: bench.config.LATENCY.max * 2, seed: 'video' };
	const sim = await startRelaySimulator({ latencyMs: latency, videoBytes: clipBytes, maxActiveVideoTasks: VIDEO_CLIPS });
	const storeDir = mkdtempSync(path.join(tmpdir(), 'flux-bench-video-store-'));
	try {
		log(`video: fresh worker, ${VIDEO_CLIPS} clips of ${mib(clipBytes)}, Cache ${cache} …`);
		const prompts = Array.from({ length: VIDEO_CLIPS }, (_, i) => `bench clip ${i + 1}`);
		const r = await runWorker({ simUrl: sim.url, apiKey: sim.apiKey, prompts, cache }, storeDir);
		const slowestClipMs = Math.max(...[...sim.log.tasks.values()].map((t) => t.latencyMs));
		return {
			cache,
			wallMs: r.wallMs,
			slowestClipMs,
			efficiency: slowestClipMs / r.wallMs,
			baselineRss: r.baselineRss,
			peakRss: r.peakRss,
			growth: r.peakRss - r.baselineRss,
			peakActiveVideoTasks: sim.log.peakActiveVideoTasks,
			allSucceeded: r.statuses.length === VIDEO_CLIPS && r.statuses.every((st) => st === 'success'),
			allFullSize: r.clipBytes.every((b) => b === clipBytes),
		};
	} finally {
		await sim.close();
		rmSync(storeDir, { recursive: true, force: true });
	}
}

export async function runVideo(bench: Bench): Promise<VideoScenario> {
	const clipBytes = bench.config.quick ? VIDEO_CLIP_BYTES / 10 : VIDEO_CLIP_BYTES;
	const runs = [await runOnce(bench, clipBytes, 'refresh'), await runOnce(bench, clipBytes, 'off')];
	return { clips: VIDEO_CLIPS, clipBytes, payloadBytes: VIDEO_CLIPS * clipBytes, runs };
}

const runName = (run: VideoRun) => (run.cache === 'off' ? 'Cache: Off (no result store)' : 'default (clips streamed into the result store)');

/** The video row's goals (bench/goals.ts lists them after the others). */
export function videoGoals(v: VideoScenario | undefined): Goal[] {
	if (!v) return [];
	return v.runs.flatMap((run, i) => {
		const ok = run.allSucceeded && run.allFullSize;
		const broken = ok ? '' : '; NOT every clip arrived whole';
		const letter = String.fromCharCode(97 + i * 2);
		return [
			{
				id: `9${letter}`,
				goal: `Video memory, ${runName(run)}: ${v.clips} clips of ${mib(v.clipBytes)} (${mib(v.payloadBytes)} served), filesystem binary data`,
				measured: `peak RSS growth ${mib(run.growth)} (${fixed(run.growth / v.payloadBytes)} of the payload; baseline ${mib(run.baselineRss)}, peak ${mib(run.peakRss)})${broken}`,
				target: `< ${mib(VIDEO_GROWTH_GOAL_BYTES)} (2 clips)`,
				result: ok && run.growth < VIDEO_GROWTH_GOAL_BYTES ? 'PASS' : 'MISS',
				why: 'each clip streams socket → file → result store (cacache put.stream) → n8n (prepareBinaryData with a stream); no clip is ever one Buffer. Growth beyond a few chunks per clip is garbage from 10 concurrent streams not yet collected (cacache/ssri hashing allocates per chunk).',
			},
			{
				id: `9${String.fromCharCode(98 + i * 2)}`,
				goal: `Video makespan vs the slowest clip, ${runName(run)} (${v.clips} at once; simulator video cap ${v.clips})`,
				measured: `${fixed(run.efficiency)} (wall ${s(run.wallMs)}, slowest clip ${s(run.slowestClipMs)}, tail ${s(run.wallMs - run.slowestClipMs)}; peak ${run.peakActiveVideoTasks} generating)${broken}`,
				target: 'INFO',
				result: 'INFO' as const,
				why: 'the tail is disk and hashing, not waiting: the clips are written to a download file, copied and hashed into the store (sha256), read back with the hash checked, and written into n8n’s binary store, on this machine’s cores. Real clips take minutes, so the tail is a small share there.',
			},
		];
	});
}
