import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { executeFluxVideo } from '../../src/fluxVideoN8n/executeFluxVideo';
import { fluxVideoMethods } from '../../src/fluxVideoN8n/fluxVideoSource';
import { fluxVideoDescription } from './FluxVideo.description';

export class FluxVideo implements INodeType {
	description = fluxVideoDescription;

	methods = fluxVideoMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeFluxVideo(this);
	}
}
