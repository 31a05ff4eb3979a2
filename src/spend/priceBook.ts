/**
 * What a job is expected to cost before it is sent (credits; 1 credit = $0.01): the price key groups jobs of one
 * model whose parameters set the same price (everything sent but the prompt, the seed and the media's content), and
 * the list price is the model's published price for those parameters, where BFL publishes one.
 *
 * List prices, from BFL's pricing page (docs.bfl.ai/quick_start/pricing; the per-megapixel figures as in
 * black-forest-labs/skills, skills/bfl-api: "1st MP" and "+MP"), as estimates until the account's own answers tell:
 * | model            | first megapixel | each further megapixel (output beyond the first, and each input image) |
 * | flux-2-klein-4b  | 1.4             | 0.1 |
 * | flux-2-klein-9b  | 1.5             | 0.2 |
 * | flux-2-pro       | 3               | 1.5 |
 * | flux-2-max       | 7               | 3   |
 * | flux-2-flex      | 5               | 5   |
 * | flux-3-image     | not published when this was written: learned from the first answer |
 * | flux-3-video     | not published when this was written: learned from the first finished clip |
 * A model without a list price has no estimate until an answer of this account tells it: under a credit limit
 * its jobs go out one at a time until then (ledgerState.ts).
 */
import { createHash } from 'node:crypto';

/** Upstream fields that never change the price. */
const NOT_PRICED = new Set(['prompt', 'seed', 'webhook_url', 'webhook_secret']);

/**
 * The price key of a job: the model and every upstream field except the prompt and the seed. `fields` carries media
 * as counts (e.g. `images: 2`), never their content, so jobs with different pictures of the same shape share a price.
 */
export function priceKey(model: string, fields: Readonly<Record<string, unknown>>): string {
	const kept = Object.keys(fields)
		.filter((name) => !NOT_PRICED.has(name) && fields[name] !== undefined)
		.sort()
		.map((name) => [name, fields[name]]);
	const digest = createHash('sha256').update(JSON.stringify(kept)).digest('hex').slice(0, 16);
	return `${model}:${digest}`;
}

/** Credits of a megapixel-priced model: the first megapixel, and each further one (output beyond the first, inputs). */
function perMegapixel(first: number, further: number) {
	return (fields: Readonly<Record<string, unknown>>): number => {
		const width = typeof fields.width === 'number' ? fields.width : 1024;
		const height = typeof fields.height === 'number' ? fields.height : 1024;
		const outputMp = Math.max(1, Math.ceil((width * height) / 1024 ** 2)); // 1024 × 1024 is "1 MP" in the table
		const inputs = Object.keys(fields).filter((name) => /^input_image(_\d+)?$/.test(name) && Boolean(fields[name])).length;
		return Math.round((first + further * (outputMp - 1 + inputs)) * 100) / 100;
	};
}

/** The list price table (see the file's opening comment); undefined: BFL publishes none for the model. */
export const LIST_PRICES: Readonly<Record<string, ((fields: Readonly<Record<string, unknown>>) => number) | undefined>> = {
	'flux-2-klein-4b': perMegapixel(1.4, 0.1),
	'flux-2-klein-9b': perMegapixel(1.5, 0.2),
	'flux-2-pro': perMegapixel(3, 1.5),
	'flux-2-max': perMegapixel(7, 3),
	'flux-2-flex': perMegapixel(5, 5),
	'flux-3-image': undefined,
	'flux-3-video': undefined,
};

/** The model's list price for these fields (credits), or undefined when it has none. */
export function listPrice(model: string, fields: Readonly<Record<string, unknown>>): number | undefined {
	return LIST_PRICES[model]?.(fields);
}
