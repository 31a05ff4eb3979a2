import type { FluxErrorKind } from '../flux';
import { FLUX_ERROR_HINTS } from '../fluxN8n/fluxErrorHints';
import type { ErrorHints } from '../n8n/nodeErrors';

/** The FLUX hints (see FLUX_ERROR_HINTS) worded for clips: the video pool, keyframes and the start video. */
export const FLUX_VIDEO_ERROR_HINTS: ErrorHints & Partial<Record<FluxErrorKind, string>> = {
	...FLUX_ERROR_HINTS,
	request_moderated: 'The prompt, keyframes or start video were refused by moderation.',
	content_moderated: 'The generated clip was refused by moderation.',
	rate_limited: 'The API kept answering 429 (FLUX 3 Video allows 5 active clips per account). Lower COMFLY_VIDEO_CONCURRENCY.',
};
