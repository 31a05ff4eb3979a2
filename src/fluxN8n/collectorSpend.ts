/**
 * The collectors' report fields about spend (image and video): what the accounts of this batch's jobs spent in
 * the last 24 hours and their daily limits (src/spend's spendReport). In a new process (Retry execution of only
 * the collector) the jobs are not known here: the collector's optional FLUX credential names the account then.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { accountId } from '../account';
import { spendReport, type SpendLimits } from '../spend';
import { parseFluxCredentials } from './fluxCredentials';
import { readSpendLimits } from './spendTerms';

/** The collector's own credential's account and limits, if it has one with a daily limit. */
async function collectorAccount(ctx: IExecuteFunctions): Promise<{ account: string; limits: SpendLimits } | undefined> {
	try {
		const raw = await ctx.getCredentials('fluxApi', 0);
		return { account: accountId(parseFluxCredentials(raw)), limits: readSpendLimits(raw) };
	} catch {
		return undefined; // none set, or unusable: the report shows the jobs' own accounts only
	}
}

/** CollectorSpec.reportExtras of the FLUX collectors. */
export async function collectorSpendReport(ctx: IExecuteFunctions, jobIds: readonly string[]): Promise<{ fields: Record<string, unknown>; warnings: string[] }> {
	try {
		const { fields, warnings } = await spendReport(jobIds, async () => await collectorAccount(ctx));
		return { fields: { ...fields }, warnings };
	} catch (error) {
		return { fields: {}, warnings: [`What the account spent could not be read: ${error instanceof Error ? error.message : String(error)}.`] };
	}
}
