/**
 * The spend terms of one FLUX job (image or video), read when the job is prepared: the credential's daily limits
 * (`dailyCreditLimit`, `dailyJobLimit`: 0 or empty = none; anything else must be a number ≥ 0, else an error
 * naming the field), its account, the job's price key and list price, and the node's Max New Jobs per Execution.
 * Also the collectors' report fields about spend: what the accounts of a batch's jobs spent in the last 24 hours and
 * their daily limits (src/spend's spendReport).
 */
import { z } from 'zod';
import type { IExecuteFunctions } from 'n8n-workflow';

import { accountId } from '../account';
import { FluxError, isFluxError, modelRequestBody, requestBody, type FluxCredentials, type FluxImageRequest, type ModelRequest, type SubmitBudget } from '../flux';
import type { ModelDescriptor } from '../models';
import { NewJobsPerExecution, priceKey, SpendRefusal, spendBudget, spendReport, type SpendLimits, type SpendTerms } from '../spend';
import { nodeNameOf } from '../n8n/nodeName';
import { DECIMAL } from '../parameters/fieldSchemas';
import { parseFluxCredentials } from './fluxCredentials';
import type { FluxJobIdentity } from './fluxJobKey';
import type { JobRunParameters } from './fluxParameters';
import { FluxCredentialsError } from './invalidInput';
import type { StoredJob } from './storedJob';

/** A credential limit as n8n hands it over: a number, decimal digits as text, empty; 0 and empty mean none. */
const limitSchema = (whole: boolean) => {
	const message = 'must be a number (0 or empty: no limit)';
	const number = z.number({ invalid_type_error: message }).finite(message).min(0, 'must be 0 or more (0 or empty: no limit)');
	return z.preprocess(
		(v) => (v === undefined || v === null || (typeof v === 'string' && v.trim() === '') ? 0 : typeof v === 'string' ? (DECIMAL.test(v) ? Number(v) : v) : v),
		whole ? number.int('must be a whole number (0 or empty: no limit)') : number,
	);
};

/** Each daily limit: its SpendLimits field, the credential's field, its reader. */
const LIMITS = [['credits', 'dailyCreditLimit', limitSchema(false)], ['jobs', 'dailyJobLimit', limitSchema(true)]] as const;

/** The daily limits of a `fluxApi` credential's data; throws FluxCredentialsError naming the field. */
export function readSpendLimits(raw: unknown): SpendLimits {
	const data = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
	const limits: SpendLimits = {};
	for (const [which, field, schema] of LIMITS) {
		const parsed = schema.safeParse(data[field]);
		if (!parsed.success) throw new FluxCredentialsError(field, parsed.error.issues[0].message);
		if (parsed.data > 0) limits[which] = parsed.data;
	}
	return limits;
}

/** What an item's stored job is made of, besides its identity. */
export interface StoredJobInput {
	/** The credential's data as n8n handed it over, and the same validated. */
	rawCredentials: unknown;
	credentials: FluxCredentials;
	/** The job's model: its id keys the price, its descriptor gives the list price where BFL publishes one. */
	model: ModelDescriptor;
	/** What is sent upstream, each medium as 1 (priceBook.ts). */
	priceFields: Record<string, unknown>;
	params: JobRunParameters;
}

/**
 * The stored job of item `input` in this node run: its credential, spend terms, Skip Error and Options, then its
 * identity (made last: it counts the request's occurrence, and an item whose spend terms are invalid has none).
 */
export function storedJobOf(ctx: IExecuteFunctions, input: StoredJobInput, identity: () => FluxJobIdentity): StoredJob {
	const { credentials, params } = input;
	const node = nodeNameOf(ctx);
	const spend: SpendTerms = {
		account: accountId(credentials),
		limits: readSpendLimits(input.rawCredentials),
		priceKey: priceKey(input.model.id, input.priceFields),
		listPrice: input.model.listPrice?.(input.priceFields),
		...(params.maxNewJobsPerExecution > 0
			? { perExecution: { key: NewJobsPerExecution.keyOf(String(ctx.getExecutionId() ?? ''), node), max: params.maxNewJobsPerExecution, node } }
			: {}),
		blockMs: params.timeoutMs,
	};
	const { skipError, timeoutMs, maxDownloadBytes, cacheMode } = params;
	return { credentials, spend, skipError, timeoutMs, maxDownloadBytes, cacheMode, identity: identity() };
}

/** The job's spend hook for the FLUX client (none when no limit applies): a spend refusal becomes its `budget_exceeded` error, cost 0. */
export function submitBudget(terms: SpendTerms | undefined): SubmitBudget | undefined {
	const hook = spendBudget(terms);
	if (!hook) return undefined;
	return {
		beforePost: (signal) => hook.beforePost(signal),
		reserve: (signal) => hook.reserve(signal).catch((error: unknown) => Promise.reject(error instanceof SpendRefusal ? new FluxError('budget_exceeded', error.message, { cost: 0 }) : error)),
		unsent: () => hook.unsent(),
		accepted: (cost) => hook.accepted(cost),
		ended: (outcome) => hook.ended(outcome),
	};
}

/** An image job's fields for its price: what is sent, each reference image as 1. */
export const imagePriceFields = (request: FluxImageRequest): Record<string, unknown> => requestBody(request, () => 1);

/** A clip's fields for its price: what is sent, each keyframe, start video or draft cache as 1. */
export const videoPriceFields = (request: ModelRequest): Record<string, unknown> => modelRequestBody(request, () => 1);

/**
 * A serial node's error for item `itemIndex`: a spend refusal names the item as n8n counts items in its own errors
 * (`[item 2]`, as the parameter errors do); the node throws it, or continues on fail.
 */
export function withItemNamed(error: unknown, itemIndex: number): unknown {
	if (!isFluxError(error) || error.kind !== 'budget_exceeded') return error;
	return new FluxError('budget_exceeded', `${error.message} [item ${itemIndex}]`, { cost: 0 });
}

/** What a delivered result cost, as items and slot rows show it: 0 when served from the store, null when the API did not say. */
export function deliveredCost(result: { cached?: boolean; cost?: number | null }): number | null {
	return result.cached ? 0 : (result.cost ?? null);
}

/**
 * The collector's own credential's account and limits, if it has one with a daily limit: in a new process (Retry
 * execution of only the collector) the jobs are not known here, so it names the account then.
 */
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
