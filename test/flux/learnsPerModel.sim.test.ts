/**
 * Times-to-ready are learned per model (its submit route): a clip teaches the video model's times and an image the
 * image model's, though both poll the same `get_result` route; a re-attached task (awaitVideo) teaches nothing.
 */
import type { RelaySimulator } from '../../relay-sim';
import { awaitVideo, generateImage, generateVideo } from '../../src/flux';
import { ReadyTimes } from '../../src/flux/pollSchedule';
import { readyTimesKey } from '../../src/flux/poll';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { credsFor, FAST, fast, requestFor, uniquePrompt } from './helpers';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { flux3Video, type FluxVideoRequest } from '../../src/models';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 30, videoBytes: 16 * 1024 }, (started) => (sim = started));

let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'flux-learns-'));
});
afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

const clip = (prompt: string): FluxVideoRequest => ({ model: flux3Video, mode: 't2v', prompt, aspectRatio: 'auto', resolution: 'hd', duration: 'auto', generateAudio: true });
const adaptive = (readyTimes: ReadyTimes) => fast({ testHooks: { poll: { ...FAST.testHooks.poll, adaptive: true }, readyTimes, pollLimiter: false as const } });
const videoKey = () => readyTimesKey(`${sim.url}/bfl/v1/flux-3-video`);
const imageKey = () => readyTimesKey(`${sim.url}/bfl/v1/flux-3-image`);

it('a generated clip teaches the video model its time to Ready, not the image model', async () => {
	const readyTimes = new ReadyTimes();
	await generateVideo(credsFor(sim), clip(uniquePrompt('learn clip')), { ...adaptive(readyTimes), downloadDir: dir });
	expect(readyTimes.window(videoKey(), 1)?.highMs).toBeGreaterThanOrEqual(0);
	expect(readyTimes.window(imageKey(), 1)).toBeUndefined();
});

it('an image teaches the image model only', async () => {
	const readyTimes = new ReadyTimes();
	await generateImage(credsFor(sim), requestFor(uniquePrompt('learn image')), adaptive(readyTimes));
	expect(readyTimes.window(imageKey(), 1)).toBeDefined();
	expect(readyTimes.window(videoKey(), 1)).toBeUndefined();
});

it('a re-attached clip (awaitVideo: polling did not begin at its submit) teaches nothing', async () => {
	const first = await generateVideo(credsFor(sim), clip(uniquePrompt('reattach clip')), { ...FAST, downloadDir: dir });
	const readyTimes = new ReadyTimes();
	await awaitVideo(credsFor(sim), { taskId: first.taskId }, { ...adaptive(readyTimes), downloadDir: dir });
	expect(readyTimes.window(videoKey(), 1)).toBeUndefined();
});
