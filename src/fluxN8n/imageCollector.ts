/** The FLUX parts of the image collector: a result's binary (read back from the store when only referenced). */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { imageBytes, type ImageJobResult } from './imageJobResult';

/** The binary of a finished image job (`fileBase` e.g. "slot-03"). */
export async function imageResultToBinary(ctx: IExecuteFunctions, result: ImageJobResult, fileBase: string): Promise<IBinaryData> {
	return await ctx.helpers.prepareBinaryData(await imageBytes(result), `${fileBase}.${result.fileExtension}`, result.mimeType);
}
