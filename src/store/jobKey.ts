/**
 * The store's keys: a job key (a stable digest of everything that makes a job, the account included as
 * API style, base URL and `apiKeyHash` from src/account: two accounts never share results; the key itself never
 * reaches the store), and content digests for reference images (the key covers an image's bytes, not its base64).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

import { normaliseBaseUrl } from '../account';

/** Version of the job key's layout: changing it starts a new key space (old results become unreachable). */
const JOB_DIGEST_VERSION = 'n8n-nodes-flux-concurrent/job/v1';

/** Content digest of a reference image's bytes: `sha256:<hex>`. */
export function contentDigest(bytes: Uint8Array): string {
	return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const jobKeyInputSchema = z.object({
	apiStyle: z.string().min(1),
	baseUrl: z.string().min(1),
	model: z.string().min(1),
	/** Every field sent upstream (JSON values only), reference images already replaced by `contentDigest`. */
	upstream: z.record(z.unknown()),
	/** The node's seed (a cache key, never sent upstream); 42 and "42" are the same seed. */
	seed: z.union([z.number().finite(), z.string()]),
	/** `apiKeyHash(apiKey)` (src/account), never the key. */
	apiKeyHash: z.string().regex(/^[0-9a-f]+$/, 'must be the hex output of apiKeyHash'),
	/** 0-based index of this request among identical requests in one n8n execution (occurrences.ts). */
	occurrence: z.number().int().min(0),
});

/** Everything that makes a job; see `jobKey`. */
export type JobKeyInput = z.infer<typeof jobKeyInputSchema>;

/** Canonical JSON: object keys sorted at every depth, undefined members dropped; non-JSON values throw. */
export function canonicalJson(value: unknown, at = '$'): string {
	if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
	if (typeof value === 'number') {
		if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${at} is not a finite number`);
		return JSON.stringify(value);
	}
	if (Array.isArray(value)) return `[${value.map((v, i) => canonicalJson(v ?? null, `${at}[${i}]`)).join(',')}]`;
	const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
	if (proto !== Object.prototype && proto !== null) {
		throw new TypeError(`canonicalJson: ${at} is not a JSON value (replace binary data by contentDigest)`);
	}
	const record = value as Record<string, unknown>;
	const members = Object.keys(record)
		.filter((k) => record[k] !== undefined)
		.sort()
		.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k], `${at}.${k}`)}`);
	return `{${members.join(',')}}`;
}

/**
 * Stable 64-hex digest (SHA-256) of a job: independent of object key order; changes with any field,
 * the seed, the account and the occurrence. Throws a TypeError naming the field on bad input.
 */
export function jobKey(input: JobKeyInput): string {
	const parsed = jobKeyInputSchema.safeParse(input);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new TypeError(`jobKey: field "${issue.path.join('.')}" ${issue.message}`);
	}
	const { apiStyle, baseUrl, model, upstream, seed, apiKeyHash, occurrence } = input;
	const canonical = canonicalJson({ apiStyle, baseUrl: normaliseBaseUrl(baseUrl), model, upstream, seed: String(seed), apiKeyHash, occurrence });
	return createHash('sha256').update(`${JOB_DIGEST_VERSION}\n${canonical}`, 'utf8').digest('hex');
}
