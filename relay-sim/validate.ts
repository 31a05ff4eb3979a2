/**
 * A submit body checked as BFL checks it (the schemas in relay-sim/schema, one file per API family, written from
 * FLUX_API.md and nothing of the package's own): a body BFL refuses is a 422 in BFL's (FastAPI's) shape.
 */
import type { z } from 'zod';
import { FLUX2_MODELS, flux2Body } from './schema/flux2';
import { flux3ImageBody } from './schema/flux3Image';
import { flux3VideoBody, type DraftCacheResolver } from './schema/flux3Video';
import { validationDetails, type ValidationDetail } from './schema/wireErrors';

/** Every submit endpoint the simulator serves. */
export const SUBMIT_ENDPOINTS: readonly string[] = ['flux-3-image', 'flux-3-video', ...Object.keys(FLUX2_MODELS)];

export type Validation =
	| { ok: true; body: Record<string, unknown>; parsed: unknown }
	| { ok: false; status: 422; detail: ValidationDetail[]; parsed?: unknown };

function schemaFor(endpoint: string, resolveDraftCache: DraftCacheResolver): z.ZodTypeAny {
	if (endpoint === 'flux-3-image') return flux3ImageBody;
	if (endpoint === 'flux-3-video') return flux3VideoBody(resolveDraftCache);
	return flux2Body(endpoint);
}

/** The submit body `raw` for `endpoint` (one of SUBMIT_ENDPOINTS), as BFL would take or refuse it. */
export function validateSubmit(raw: Buffer, endpoint: string, resolveDraftCache: DraftCacheResolver): Validation {
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch (err) {
		return { ok: false, status: 422, detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: (err as Error).message } }] };
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		return { ok: false, status: 422, parsed, detail: [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from' }] };
	}
	const result = schemaFor(endpoint, resolveDraftCache).safeParse(parsed);
	if (result.success) return { ok: true, body: parsed as Record<string, unknown>, parsed };
	return { ok: false, status: 422, parsed, detail: validationDetails(result.error.issues, parsed) };
}
