/**
 * The price key of a job: it groups jobs of one model whose parameters set the same price. A model's list price,
 * where BFL publishes one, is its descriptor's (src/models); a model without one has no estimate until an answer of
 * this account tells it: under a credit limit its jobs go out one at a time until then (ledgerState.ts).
 */
import { createHash } from 'node:crypto';

/** Upstream fields that never change the price. */
const NOT_PRICED = new Set(['prompt', 'seed', 'webhook_url', 'webhook_secret']);

/**
 * The price key of a job: the model and every upstream field except the prompt and the seed. `fields` carries media
 * as 1 each, never their content, so jobs with different pictures of the same shape share a price.
 */
export function priceKey(model: string, fields: Readonly<Record<string, unknown>>): string {
	const kept = Object.keys(fields)
		.filter((name) => !NOT_PRICED.has(name) && fields[name] !== undefined)
		.sort()
		.map((name) => [name, fields[name]]);
	const digest = createHash('sha256').update(JSON.stringify(kept)).digest('hex').slice(0, 16);
	return `${model}:${digest}`;
}
