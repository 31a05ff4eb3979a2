import type { IExecuteFunctions } from 'n8n-workflow';

import type { FluxImageRequest } from '../flux';
import { itemBinaryReader, locateInputBinary } from '../n8n/inputBinary';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import { fluxRun } from './fluxParameterReader';
import { fluxNodeLabels, parseFluxParameters, toFluxImageRequest } from './fluxParameters';
import { fluxJobIdentity } from './fluxJobKey';
import type { StoredJob } from './storedJob';
import { preparationError } from './invalidInput';
import { resolveReferenceImages, type KnownBinaries } from './referenceImages';
import { imagePriceFields, storedJobOf } from './spendTerms';

/** One item's job, validated and ready to run anywhere (no n8n context needed). */
export interface PreparedFluxImageJob extends StoredJob {
	/** Its binary reference images are shared copies; `images` is emptied once the submit is acknowledged. */
	request: FluxImageRequest;
	seed?: number;
}

/** The identity of what n8n stores for an item's binary: its binary data id, or its in-memory base64 text. */
function itemBinaries(ctx: IExecuteFunctions, itemIndex: number, copies: KnownBinaries['copies']): KnownBinaries {
	const identify = (property: string) => {
		try {
			const located = locateInputBinary(ctx, itemIndex, property);
			if (located === undefined) return undefined;
			const { id, data } = ctx.helpers.assertBinaryData(itemIndex, located);
			// base64 has no ':', so an in-memory binary's text never equals a stored binary's "id:…".
			return id ? `id:${id}` : data || undefined;
		} catch {
			return undefined; // read as usual, which reports what is wrong
		}
	};
	return { identify, copies };
}

/**
 * Read and validate one item's credential, parameters and reference images,
 * once, before anything is sent. Throws NodeOperationError naming field and item.
 * Within one node run, what is the same for every item is read once (FluxParameterReader,
 * credentialsParserForRun, KnownBinaries); the credential itself is asked for per item, as n8n may resolve it per item
 * (CredentialsAhead: up to CREDENTIALS_AHEAD items ahead, so that those database reads overlap).
 */
export async function prepareFluxImageJob(ctx: IExecuteFunctions, itemIndex: number): Promise<PreparedFluxImageJob> {
	const run = fluxRun(ctx, 'image');
	try {
		const rawCredentials = await run.credentials.for(itemIndex);
		const credentials = run.parseCredentials(rawCredentials);
		const params = parseFluxParameters(run.parameters.read(itemIndex));
		const known = itemBinaries(ctx, itemIndex, run.binaries);
		const images = await resolveReferenceImages(params.referenceImages, itemBinaryReader(ctx, itemIndex), { known, model: params.model.id });
		const request = toFluxImageRequest(params, images);
		const job = storedJobOf(ctx, { rawCredentials, credentials, model: params.model, priceFields: imagePriceFields(request), params }, () => fluxJobIdentity(ctx, credentials, request, params.seed));
		return { ...job, request, seed: params.seed };
	} catch (error) {
		throw preparationError(ctx.getNode(), error, itemIndex, fluxNodeLabels('image'), FLUX_ERROR_HINTS);
	}
}
