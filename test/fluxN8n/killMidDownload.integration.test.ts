/**
 * kill -9 of a process while its acknowledged job's image streams to disk (a real forked process, the relay
 * simulator on 127.0.0.1, a real store folder): the next process re-attaches (pays nothing again), never serves the
 * half file left behind (a `.part`, swept after 25 h), and stores the whole image.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import { downloadDir } from '../../src/fluxN8n/downloadFolders';
import { resultSource as imageSource } from '../../src/fluxN8n/jobResult';
import { getStore } from '../../src/store';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { until } from '../support/until';
import { preparedJob } from './fixtures/imageJobWorker';

const imageDownloadDir = () => downloadDir('image');

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0, imageBytes: 256 * 1024 }, (started) => (sim = started));

let child: ChildProcess | undefined;
afterEach(() => {
	if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
	child = undefined;
});

const parts = () => (existsSync(imageDownloadDir()) ? readdirSync(imageDownloadDir()).filter((name) => name.endsWith('.part')) : []);

async function readAll(source: Buffer | NodeJS.ReadableStream): Promise<Buffer> {
	if (Buffer.isBuffer(source)) return source;
	const chunks: Buffer[] = [];
	for await (const chunk of source) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

it('killed mid-download: the next process re-attaches (one submit), stores the whole image, never the .part', async () => {
	const cmd = { baseUrl: sim.url, apiKey: sim.apiKey, prompt: 'a kestrel cut short' };
	sim.setFault(cmd.prompt, { on: 'download', slowBytesPerSecond: 8192 });
	const worker = fork(path.join(__dirname, 'fixtures', 'imageJobWorker.ts'), [], {
		execArgv: ['-r', 'ts-node/register/transpile-only'],
		env: { ...process.env },
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	child = worker;
	await new Promise((resolve) => worker.once('message', resolve)); // ready
	worker.send(cmd);
	await until(() => parts().length === 1, 'the killed process is streaming its image into a .part file', { limitMs: 30_000 });
	const exited = new Promise((resolve) => worker.once('exit', resolve));
	worker.kill('SIGKILL');
	await exited;
	const job = preparedJob(cmd);
	expect((await getStore().journal.read(job.identity.key))?.state).toBe('submitted');

	sim.clearFaults();
	const image = await obtainFluxImage(job, { jobId: 'job-next', signal: new AbortController().signal, setAttempts: () => undefined });
	expect(image).toMatchObject({ outcome: 'success', storeKey: job.identity.key, cached: false });
	const bytes = await readAll(await imageSource(image));
	expect(bytes.length).toBe(256 * 1024);
	expect(readPromptFromPng(bytes)).toBe(cmd.prompt);
	expect(sim.log.submits.length).toBe(1);
	expect((await getStore().journal.read(job.identity.key))?.state).toBe('stored');
	expect(parts()).toHaveLength(1); // the killed process's half file: left for the sweep (25 h), never read
});
