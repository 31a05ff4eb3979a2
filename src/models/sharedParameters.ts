/** Parameters several models declare (each model lists them; a per-model range is an argument, not a copy). */
import { z } from 'zod';

import { booleanLike, integerRange, promptSchema } from '../parameters/fieldSchemas';
import type { Parameter } from './parameter';

export const prompt = (placeholder: string, what: string, modes?: readonly string[]): Parameter => ({
	name: 'prompt',
	property: { displayName: 'Prompt', name: 'prompt', type: 'string', typeOptions: { rows: 4 }, default: '', required: true, placeholder, description: `${what} (at most 20,480 characters)` },
	schema: promptSchema,
	wire: 'prompt',
	modes,
});

/** Safety Tolerance from 0 to `max` (default 2); with `sendIf`, sent only when it says (a body that never had it). */
export const safetyTolerance = (max: number, extra: string, options: Pick<Parameter, 'modes' | 'sendIf'> = {}): Parameter => ({
	name: 'safetyTolerance',
	property: {
		displayName: 'Safety Tolerance',
		name: 'safetyTolerance',
		type: 'number',
		default: 2,
		typeOptions: { minValue: 0, maxValue: max, numberPrecision: 0 },
		description: `How strictly the inputs and the result are moderated: a whole number from 0 (strictest) to ${max} (most permissive), default 2${extra}. A refused job ends with status Request Moderated or Content Moderated.`,
	},
	schema: integerRange(0, max).transform((v) => v ?? 2),
	wire: 'safety_tolerance',
	...options,
});

/** The Seed as sent to a model that takes one (the node's Seed (Cache Key) shows and reads it too). */
export const seedSent: Parameter = { name: 'seed', schema: integerRange(0, Number.MAX_SAFE_INTEGER), wire: 'seed' };

/** A boolean sent only when true (so a body without it, as saved workflows made, stays the same). */
export const flag = (name: string, displayName: string, wire: string, description: string, modes?: readonly string[]): Parameter => ({
	name,
	property: { displayName, name, type: 'boolean', default: false, description },
	schema: booleanLike(false),
	wire,
	sendIf: (v: boolean) => v,
	modes,
});

const TAG = /^[A-Za-z0-9._-]{1,64}$/;

/** Options → Model Version: `latest` (not sent, so saved workflows keep their job keys) or a pinned release tag. */
export const modelVersion: Parameter = {
	name: 'modelVersion',
	in: 'options',
	property: {
		displayName: 'Model Version',
		name: 'modelVersion',
		type: 'string',
		default: 'latest',
		placeholder: 'latest',
		description: 'Latest (the default), or a release tag BFL publishes, to pin the model: a pinned version is part of the stored results’ key',
	},
	schema: z.preprocess(
		(v) => (typeof v === 'string' ? v.trim() || undefined : v),
		z.string({ invalid_type_error: 'must be latest or a release tag' }).regex(TAG, 'must be latest or a release tag (letters, digits, ".", "_", "-"; at most 64)').default('latest'),
	),
	wire: 'version',
	sendIf: (v: string) => v !== 'latest',
};
