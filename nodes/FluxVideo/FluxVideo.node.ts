import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { executeFluxNode, fluxMethods } from '../../src/fluxN8n/fluxNode';
import { fluxVideoNode } from '../../src/fluxVideoN8n/videoJobs';
import { fluxVideoDescription } from './FluxVideo.description';

export class FluxVideo implements INodeType {
	description = fluxVideoDescription;

	methods = fluxMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeFluxNode(this, fluxVideoNode);
	}
}
