/**
 * The collector's credential for re-attaching to a journaled upstream task (image or video) after n8n restarted:
 * its optional FLUX credential, which must be the account that sent the job. Throws an `auth` FluxError otherwise.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { FluxError, type FluxCredentials } from '../flux';
import { apiKeyHash } from '../account';
import type { JournalRecord } from '../store';
import { parseFluxCredentials } from './fluxCredentials';

const SET_CREDENTIAL =
	'Its job was still generating upstream when n8n stopped. Set the FLUX API credential on this collector node (the account that sent it) to re-attach to it without paying again.';
const WRONG_ACCOUNT = "The FLUX API credential on this collector is not the account that sent this job: set that account's credential to re-attach.";

/** The collector's optional FLUX credential, or undefined when none is set. */
async function optionalCredentials(ctx: IExecuteFunctions, itemIndex: number): Promise<FluxCredentials | undefined> {
	let raw;
	try {
		raw = await ctx.getCredentials('fluxApi', itemIndex);
	} catch {
		return undefined; // no credential set on the collector
	}
	return parseFluxCredentials(raw);
}

/** The credential that sent `record`'s job, from the collector (item `itemIndex`). */
export async function reattachCredentials(ctx: IExecuteFunctions, record: JournalRecord, itemIndex: number): Promise<FluxCredentials> {
	const credentials = await optionalCredentials(ctx, itemIndex);
	if (!credentials) throw new FluxError('auth', SET_CREDENTIAL, { taskId: record.taskId });
	if (apiKeyHash(credentials.apiKey) !== record.apiKeyHash) throw new FluxError('auth', WRONG_ACCOUNT, { taskId: record.taskId });
	return credentials;
}
