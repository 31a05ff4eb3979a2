/**
 * Spend control on the real job path (obtainFluxImage / obtainFluxVideo → the FLUX client → the relay simulator on
 * 127.0.0.1), with the process's ledger in each test's own store folder: a fresh account never sends more than its
 * credit limit buys (the price is learned from the first answer, one job at a time until then); reservations come
 * back for submits that provably created no task (429, a refused connection, a cancel before sending) and stay for
 * ambiguous ones; a clip's cost arrives only with its finished poll; a relay that never reports cost leaves the
 * credit limit unenforceable (the job limit still holds, and the report says so); a job under a daily limit waits for
 * the ledger's restartSettled before its POST.
 */
import { accountId } from '../../src/account';
import { isFluxError, type FluxError } from '../../src/flux';
import { flux3Image, flux3Video } from '../../src/models';

const IMAGE_MODEL = flux3Image.id;
const VIDEO_MODEL = flux3Video.id;
import { imagePriceFields, videoPriceFields } from '../../src/fluxN8n/spendTerms';
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import { obtainFluxVideo } from '../../src/fluxVideoN8n/videoJobs';
import type { PreparedFluxImageJob } from '../../src/fluxN8n/prepareFluxImageJob';
import type { PreparedFluxVideoJob } from '../../src/fluxVideoN8n/prepareFluxVideoJob';
import { NewJobsPerExecution, priceKey, recentAccounts, spendLedger, spendReport, type SpendLimits } from '../../src/spend';
import { getStore } from '../../src/store';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext, preparedImageJob, preparedVideoJob, simCredentials } from '../support/preparedJobs';
import { until } from '../support/until';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 50 }, (started) => (sim = started));

const account = () => accountId(simCredentials(sim));

function imageJob(prompt: string, limits: SpendLimits, extra: { timeoutMs?: number; perExecution?: number } = {}): PreparedFluxImageJob {
	const job = preparedImageJob(sim, prompt, { timeoutMs: extra.timeoutMs ?? 20_000 });
	const fields = imagePriceFields(job.request);
	const perExecution = extra.perExecution ? { key: NewJobsPerExecution.keyOf('exec-1', 'Image'), max: extra.perExecution, node: 'Image' } : undefined;
	return { ...job, spend: { account: account(), limits, priceKey: priceKey(IMAGE_MODEL, fields), blockMs: job.timeoutMs, ...(perExecution ? { perExecution } : {}) } };
}

function videoJob(prompt: string, limits: SpendLimits): PreparedFluxVideoJob {
	const job = preparedVideoJob(sim, prompt, { timeoutMs: 20_000 });
	job.request.duration = 5;
	const fields = videoPriceFields(job.request);
	return { ...job, spend: { account: account(), limits, priceKey: priceKey(VIDEO_MODEL, fields), blockMs: job.timeoutMs } };
}

async function balance() {
	await spendLedger().idle();
	return await spendLedger().balance(account());
}

const errorOf = async (work: Promise<unknown>): Promise<FluxError> => {
	const error = await work.then(() => undefined, (e: unknown) => e);
	if (!isFluxError(error)) throw new Error(`expected a FluxError, got ${String(error)}`);
	return error;
};

it('a fresh account with a 40-credit limit and 30 jobs of 4 credits buys exactly 10; the other 20 are refused unsent', async () => {
	const jobs = Array.from({ length: 30 }, (_, i) => imageJob(`budget batch ${i + 1}`, { credits: 40 }));
	const outcomes = await Promise.allSettled(jobs.map((job, i) => obtainFluxImage(job, jobContext(`job-${i}`))));
	const bought = outcomes.filter((o) => o.status === 'fulfilled');
	const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
	expect(bought).toHaveLength(10);
	for (const o of bought) expect((o as PromiseFulfilledResult<{ cost: number }>).value.cost).toBe(4);
	expect(refused).toHaveLength(20);
	for (const o of refused) {
		expect(o.reason).toMatchObject({ kind: 'budget_exceeded', cost: 0 });
		expect((o.reason as Error).message).toMatch(/daily credit limit .* \(40 credits of 40 spent in the last 24 hours by 10 jobs, and this job costs about 4 credits\)\. Raise "Daily Credit Limit" on the FLUX API credential/);
	}
	expect(sim.log.submits).toHaveLength(10);
	expect(sim.log.charged).toBe(40);
	expect((await balance()).spent).toEqual({ credits: 40, jobs: 10 });
	// A refused job is journaled failed (a later run sends it), never "submitting" (maybe paid).
	const refusedKeys = jobs.filter((_, i) => outcomes[i].status === 'rejected').map((job) => job.identity.key);
	for (const key of refusedKeys) expect((await getStore().journal.read(key))?.state ?? 'failed').toBe('failed');

	// A second run the same day buys nothing and sends nothing.
	const again = await Promise.allSettled([imageJob('budget batch again', { credits: 40 })].map((job) => obtainFluxImage(job, jobContext('job-again'))));
	expect(again[0]).toMatchObject({ status: 'rejected', reason: { kind: 'budget_exceeded' } });
	expect(sim.log.submits).toHaveLength(10);
});

it('a submit answered 429 gives its reservation back each time; the accepted one is counted once', async () => {
	sim.setFault('busy once', { on: 'submit', status: 429, times: 2, retryAfter: 0 });
	const image = await obtainFluxImage(imageJob('busy once', { jobs: 1 }), jobContext('job-429'));
	expect(image).toMatchObject({ outcome: 'success', cost: 4 });
	expect(sim.log.submitsByPrompt.get('busy once')).toBe(3);
	expect((await balance()).spent).toEqual({ credits: 4, jobs: 1 });
});

it('a 429 storm until the job gives up leaves nothing counted; so does a connection that never opened', async () => {
	sim.setFault('storm', { on: 'submit', status: 429, retryAfter: 0 });
	const storm = await errorOf(obtainFluxImage(imageJob('storm', { jobs: 1 }, { timeoutMs: 3_000 }), jobContext('job-storm')));
	expect(['rate_limited', 'timeout']).toContain(storm.kind);
	expect(sim.log.submitsByPrompt.get('storm')).toBeGreaterThan(1);
	expect((await balance()).spent.jobs).toBe(0);

	const closed = imageJob('nobody listens', { jobs: 1 }, { timeoutMs: 5_000 });
	closed.credentials = { ...closed.credentials, baseUrl: 'http://127.0.0.1:9' };
	const refusedConnection = await errorOf(obtainFluxImage(closed, jobContext('job-closed')));
	expect(refusedConnection.kind).toBe('network');
	expect((await balance()).spent.jobs).toBe(0);
});

it('an ambiguous submit (a 500 or a reset after the body was sent) stays counted, so the job limit holds', async () => {
	sim.setFault('ambiguous 500', { on: 'submit', status: 500 });
	sim.setFault('ambiguous reset', { on: 'submit', reset: true });
	expect((await errorOf(obtainFluxImage(imageJob('ambiguous 500', { jobs: 2 }), jobContext('job-500')))).kind).toBe('maybe_submitted');
	expect((await errorOf(obtainFluxImage(imageJob('ambiguous reset', { jobs: 2 }), jobContext('job-reset')))).kind).toBe('maybe_submitted');
	expect((await balance()).spent.jobs).toBe(2);
	expect((await errorOf(obtainFluxImage(imageJob('one more', { jobs: 2 }), jobContext('job-more')))).kind).toBe('budget_exceeded');
	expect(sim.log.submitsByPrompt.get('one more') ?? 0).toBe(0);
	expect(sim.log.charged).toBe(8); // both ambiguous submits did create (paid) tasks
});

it('a job cancelled while it waits for another job to tell the price is never sent and leaves nothing counted', async () => {
	sim.setFault('slow answer', { on: 'submit', hang: true });
	const first = obtainFluxImage(imageJob('slow answer', { credits: 40 }, { timeoutMs: 2_000 }), jobContext('job-first'));
	await until(() => (sim.log.submitsByPrompt.get('slow answer') ?? 0) === 1, 'the first (unpriced) job is on the wire');
	const controller = new AbortController();
	const second = obtainFluxImage(imageJob('waits its turn', { credits: 40 }), jobContext('job-second', controller.signal));
	await spendLedger().idle();
	controller.abort();
	expect((await errorOf(second)).kind).toBe('cancelled');
	expect(sim.log.submitsByPrompt.get('waits its turn') ?? 0).toBe(0);
	expect((await errorOf(first)).kind).toBe('timeout'); // hung: maybe sent, counted
	expect((await balance()).spent.jobs).toBe(1);
});

it('Max New Jobs per Execution: a node sends at most that many new jobs in one execution; a refused POST gives its place back', async () => {
	sim.setFault('cap 1', { on: 'submit', status: 429, times: 1, retryAfter: 0 });
	const results = await Promise.allSettled(['cap 1', 'cap 2', 'cap 3'].map((prompt, i) => obtainFluxImage(imageJob(prompt, {}, { perExecution: 2 }), jobContext(`cap-${i}`))));
	expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
	const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
	expect(refused?.reason).toMatchObject({ kind: 'budget_exceeded' });
	expect((refused?.reason as Error).message).toMatch(/node "Image" may send at most 2 jobs in one execution.*Options → Max New Jobs per Execution/);
	expect(sim.log.submits.filter((s) => s.status === 200)).toHaveLength(2);
});

it("a clip's cost arrives only with its finished poll: reserved unpriced, then settled at the API's figure", async () => {
	sim.setLatency(400);
	const job = videoJob('a priced clip', { credits: 500 });
	const running = obtainFluxVideo(job, jobContext('video-1'));
	await until(() => sim.log.submits.length === 1, 'the clip is submitted');
	await spendLedger().idle();
	const during = await spendLedger().file.read(account());
	expect(during.entries).toHaveLength(1);
	expect(during.entries[0].credits).toBeNull(); // the submit answer said null: not known yet
	const video = await running;
	expect(video).toMatchObject({ outcome: 'success', cost: 50 }); // 5 s HD at the simulator's 10 credits a second
	expect((await balance()).spent).toEqual({ credits: 50, jobs: 1 });
	sim.setLatency(50);
});

it('a relay that never reports cost: the credit limit cannot be enforced, the job limit still is, and the report says so', async () => {
	sim.setReportCost(false);
	try {
		const limits = { credits: 8, jobs: 3 };
		const first = await obtainFluxImage(imageJob('no cost 1', limits), jobContext('nc-1'));
		expect(first.cost).toBeNull();
		const rest = await Promise.allSettled(['no cost 2', 'no cost 3', 'no cost 4'].map((p, i) => obtainFluxImage(imageJob(p, limits), jobContext(`nc-${i + 2}`))));
		expect(rest.filter((r) => r.status === 'fulfilled')).toHaveLength(2); // in parallel: no price to wait for
		const refused = rest.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
		expect(refused).toHaveLength(1);
		expect(refused[0].reason).toMatchObject({ kind: 'budget_exceeded' });
		expect((refused[0].reason as Error).message).toMatch(/daily job limit .* \(3 jobs of 3/);
		expect(sim.log.charged).toBe(12); // what the relay really charged: more than the 8-credit limit, as it never said
		recentAccounts().note('nc-1', imageJob('x', limits).spend);
		const report = await spendReport(['nc-1']);
		expect(report.fields).toEqual({ spent: { credits: 0, jobs: 3, window: '24h' }, limits: { dailyCreditLimit: 8, dailyJobLimit: 3 } });
		expect(report.warnings.join('\n')).toMatch(/reports no cost for this account's flux-3-image jobs, so the Daily Credit Limit \(8\) .* cannot be enforced for them; its Daily Job Limit \(3\) still is/);
	} finally {
		sim.setReportCost(true);
	}
});

it('a job under a daily limit waits, before its POST starts, for the ledger to get back what a restarted Redis forgot (restartSettled); one without a daily limit does not ask', async () => {
	const ledger = spendLedger();
	let settle!: () => void;
	const asked: Array<AbortSignal | undefined> = [];
	// The first ask (before the POST) waits until the test lets it go; the next (before the reservation) is at once.
	const spy = jest.spyOn(ledger, 'restartSettled').mockImplementation(async (signal) => {
		asked.push(signal);
		if (asked.length === 1) await new Promise<void>((resolve) => (settle = resolve));
	});
	try {
		const tasksBefore = sim.log.tasks.size;
		const limited = obtainFluxImage(imageJob('budget waits for a restarted ledger', { jobs: 5 }), jobContext('job-restart'));
		await until(() => asked.length === 1, 'the job asked the ledger');
		expect(asked[0]).toBeInstanceOf(AbortSignal);
		expect(sim.log.tasks.size).toBe(tasksBefore); // nothing sent while it waits
		settle();
		expect((await limited).outcome).toBe('success');
		expect(sim.log.tasks.size).toBe(tasksBefore + 1);
		expect(asked).toHaveLength(2); // before the POST, and again right before the reservation
		spy.mockClear();
		expect((await obtainFluxImage(imageJob('budget per execution only', {}, { perExecution: 5 }), jobContext('job-per-execution'))).outcome).toBe('success');
		expect(spy).not.toHaveBeenCalled();
	} finally {
		spy.mockRestore();
	}
});

it('a job cancelled while it waits for a restarted ledger is stopped as cancelled, never sent, with nothing counted (not "maybe paid")', async () => {
	const ledger = spendLedger();
	// A ledger that lets a waiting job go when its signal fires, as restartSettled does (it resolves; it does not reject).
	const spy = jest.spyOn(ledger, 'restartSettled').mockImplementation(async (signal) => {
		await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
	});
	try {
		const controller = new AbortController();
		const job = obtainFluxImage(imageJob('cancelled while the ledger settles', { jobs: 5 }), jobContext('job-cancel-settle', controller.signal));
		await until(() => spy.mock.calls.length === 1, 'the job waits for the ledger');
		controller.abort();
		const error = await errorOf(job);
		expect(error.kind).toBe('cancelled');
		expect(error.message).not.toMatch(/may exist upstream|maybe paid|in flight/i);
		expect(sim.log.submitsByPrompt.get('cancelled while the ledger settles') ?? 0).toBe(0);
	} finally {
		spy.mockRestore();
	}
	expect((await balance()).spent.jobs).toBe(0);
});

it('without any limit nothing is counted and no ledger file is written', async () => {
	const job = preparedImageJob(sim, 'no limits at all');
	const image = await obtainFluxImage({ ...job, spend: { account: account(), limits: {}, priceKey: 'k', blockMs: 1 } }, jobContext('free'));
	expect(image).toMatchObject({ outcome: 'success', cost: 4 });
	await spendLedger().idle();
	expect((await spendLedger().file.read(account())).entries).toHaveLength(0);
});

it("the report of a collector whose jobs ran in another process uses the collector's own credential, and only then", async () => {
	await obtainFluxImage(imageJob('counted elsewhere', { jobs: 5 }), jobContext('elsewhere-1'));
	let asked = 0;
	const collectorCredential = async () => {
		asked++;
		return { account: account(), limits: { jobs: 5 } };
	};
	const fromElsewhere = await spendReport(['a-job-this-process-never-ran'], collectorCredential);
	expect(fromElsewhere.fields).toEqual({ spent: { credits: 4, jobs: 1, window: '24h' }, limits: { dailyCreditLimit: null, dailyJobLimit: 5 } });
	expect(asked).toBe(1);
	recentAccounts().note('ran-here-without-limits', undefined);
	expect((await spendReport(['ran-here-without-limits'], collectorCredential)).fields).toEqual({});
	expect(asked).toBe(1);
});
