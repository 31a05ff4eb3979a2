/**
 * The error of a job a limit refused before it was sent (FluxError kind `budget_exceeded`, cost 0: nothing was
 * paid): which limit, what was spent in the window, and where to raise it.
 */
import { FluxError } from '../flux';
import type { Spent } from './ledgerState';

const credits = (n: number) => `${Math.round(n * 100) / 100} credit${n === 1 ? '' : 's'}`;
const jobs = (n: number) => `${n} job${n === 1 ? '' : 's'}`;

function refusal(message: string): FluxError {
	return new FluxError('budget_exceeded', message, { cost: 0 });
}

/** The credential's Daily Job Limit is reached. */
export function jobLimitReached(limit: number, spent: Spent): FluxError {
	return refusal(
		`Not sent: the daily job limit of the FLUX API credential is reached (${jobs(spent.jobs)} of ${limit} in the last 24 hours, ${credits(spent.credits)} spent). ` +
			`Raise "Daily Job Limit" on the FLUX API credential, or wait until earlier jobs leave the 24-hour window.`,
	);
}

/** The credential's Daily Credit Limit would be passed. */
export function creditLimitReached(limit: number, spent: Spent, price: number | undefined): FluxError {
	const costs = price === undefined ? '' : `, and this job costs about ${credits(price)}`;
	return refusal(
		`Not sent: the daily credit limit of the FLUX API credential would be passed (${credits(spent.credits)} of ${limit} spent in the last 24 hours by ${jobs(spent.jobs)}${costs}). ` +
			`Raise "Daily Credit Limit" on the FLUX API credential, or wait until earlier jobs leave the 24-hour window.`,
	);
}

/** The node's Max New Jobs per Execution is reached. */
export function executionLimitReached(limit: number, node: string): FluxError {
	return refusal(
		`Not sent: node "${node}" may send at most ${jobs(limit)} in one execution, and ${limit} ${limit === 1 ? 'was' : 'were'} sent (new paid jobs; results from the store do not count). ` +
			`Raise Options → Max New Jobs per Execution on that node (0 = no limit).`,
	);
}

/** The ledger could not be used: the daily limits cannot be checked, so the job is not sent (fail closed). */
export function ledgerUnusable(why: string): FluxError {
	return refusal(`Not sent: the daily limits of the FLUX API credential could not be checked because ${why}. Jobs under a daily limit are not sent until they can be.`);
}
