import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isToolCall } from '../n8n/toolCall';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import { imageSource } from './imageJobResult';
import { deliveredImage, runFluxImageJob } from './imageJobs';
import { prepareFluxImageJob, type PreparedFluxImageJob } from './prepareFluxImageJob';
import { executeSerial } from './serialNode';

/**
 * What an AI Agent gets from the node used as a tool. n8n hands the agent only the items' JSON (it
 * drops binaries, logging a warning), so the JSON says what was made: the prompt, the file's name,
 * type and size in bytes, and the binary property that holds it (the image stays on the item, in the
 * tool node's run data, for the nodes after the agent).
 */
function toolResultJson(job: PreparedFluxImageJob, binary: IBinaryData, bytes: number): IDataObject {
	return {
		prompt: job.request.prompt,
		fileName: binary.fileName ?? null,
		mimeType: binary.mimeType,
		fileSize: bytes,
		binaryProperty: 'data',
	};
}

/**
 * The serial FLUX image node (serialNode.ts): every input item is generated in turn and becomes one item with
 * the image as binary `data` (its type and extension follow its bytes). As an AI Agent tool, its JSON also
 * describes the image (toolResultJson).
 */
export async function executeFluxImage(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const asTool = isToolCall(ctx);
	return await executeSerial(ctx, {
		jobIdPrefix: 'serial',
		prepare: prepareFluxImageJob,
		run: runFluxImageJob,
		binary: async (node, result, itemIndex) => {
			const binary = await node.helpers.prepareBinaryData(await imageSource(result), `flux-${result.taskId ?? itemIndex}.${result.fileExtension}`, result.mimeType);
			deliveredImage(result);
			return binary;
		},
		moreJson: (_node, job, binary, result) => (asTool && binary ? toolResultJson(job, binary, result.byteLength ?? result.buffer?.length ?? 0) : {}),
		errorHints: FLUX_ERROR_HINTS,
	});
}
