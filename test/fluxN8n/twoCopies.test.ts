/**
 * n8n may load the package twice in one process, and both copies share the process-wide flights and spend ledger
 * (src/processWide.ts): an error one copy raises may reach the other's code. Errors are therefore recognised by
 * value, never by `instanceof`: a spend refusal stays a refusal, whichever copy raised it.
 */
import * as flux from '../../src/flux';
import { imageJobs } from '../../src/fluxN8n/imageJobs';
import { runStoredJob } from '../../src/fluxN8n/storedJob';
import { processWide, resetProcessWide } from '../../src/processWide';
import * as spend from '../../src/spend';
import { SingleFlight } from '../../src/store';
import type { RelaySimulator } from '../../relay-sim/types';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext, preparedImageJob } from '../support/preparedJobs';

function isolatedCopy<T extends object>(path: string): T {
	let copy!: T;
	jest.isolateModules(() => {
		copy = jest.requireActual<T>(path);
	});
	return copy;
}

let simulator: RelaySimulator;
useRelaySimulator({}, (started) => (simulator = started));
const sim = () => simulator;
afterEach(async () => {
	await resetProcessWide();
});

it("Skip Error does not hide the other copy's spend refusal met through the shared flight (the slot fails budget_exceeded, cost 0)", async () => {
	const other = isolatedCopy<typeof flux>('../../src/flux');
	expect(other.FluxError).not.toBe(flux.FluxError); // really two copies
	const job = { ...preparedImageJob(sim(), 'one refused job'), skipError: true };
	// The other copy's job of the same key owns the flight, and a spend limit refuses it.
	let refuse!: () => void;
	const refusal = new Promise<never>((_resolve, reject) => (refuse = () => reject(new other.FluxError('budget_exceeded', 'Not sent: the daily job limit is reached', { cost: 0 }))));
	refusal.catch(() => undefined);
	const flights = processWide('imageFlights', () => new SingleFlight<unknown>());
	flights.run(job.identity.key, () => refusal).catch(() => undefined);
	const joined = runStoredJob(imageJobs, job, jobContext('copy-b-job'));
	refuse();
	await expect(joined).rejects.toMatchObject({ kind: 'budget_exceeded', cost: 0 });
	expect(sim().log.submits).toHaveLength(0);
});

it("a damaged ledger raised by the other copy's ledger is still a spend refusal, naming why", async () => {
	const otherSpend = isolatedCopy<typeof spend>('../../src/spend');
	const ledger = {
		reserve: async () => {
			throw new otherSpend.LedgerUnusableError('the spend ledger /store/spend/a.json is damaged');
		},
		track: () => undefined,
	} as unknown as spend.SpendLedger;
	const hook = spend.jobBudget({ account: 'a', limits: { jobs: 5 }, priceKey: 'p', blockMs: 1000 }, () => ({ ledger, perExecution: new spend.NewJobsPerExecution() }))!;
	const refused = await hook.reserve(new AbortController().signal).catch((error: unknown) => error);
	expect(refused).toBeInstanceOf(spend.SpendRefusal);
	expect((refused as Error).message).toMatch(/could not be checked because the spend ledger .* is damaged/);
});
