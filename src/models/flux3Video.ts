/** FLUX 3 Video (`flux-3-video`): the video pool, five active tasks per account, no seed (FLUX_API.md). */
import { VIDEO_MODEL } from '../flux/videoOptions';
import type { ModelDescriptor } from './modelDescriptor';

export const flux3Video: ModelDescriptor = {
	id: VIDEO_MODEL,
	name: 'FLUX 3 Video',
	output: 'video',
	accountLimit: 5,
	takesSeed: false,
	mediaType: 'video/mp4',
};
