import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { collectImages } from '../../src/collect/collectImages';
import { concurrentCollectDescription } from './ConcurrentCollect.description';

export class ConcurrentCollect implements INodeType {
	description = concurrentCollectDescription;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await collectImages(this);
	}
}
