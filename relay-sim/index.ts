/** The relay simulator: its controls are in types.ts (RelaySimOptions) and faults.ts. */
export { startRelaySimulator } from './server';
export { DEFAULT_API_KEY, DEFAULT_MAX_ACTIVE_VIDEO } from './context';
export { makePromptMp4, readClipInfo, readPromptFromMp4 } from './mp4';
export type { ClipInfo } from './mp4';
export { promptJpeg, readPromptFromJpeg } from './jpeg';
export { makePromptPng, readPromptFromPng, readPngText, verifyPng, PNG_SIGNATURE } from './png';
export type { PromptPngOptions, PngInfo } from './png';
export type {
	ApiStyle,
	Fault,
	FinalStatus,
	LatencySpec,
	RelaySimOptions,
	RelaySimulator,
	SimLog,
	SubmitLogEntry,
	TaskLogEntry,
} from './types';
export { SIM_DRAFT_SHARE, SIM_FLUX2_CREDITS, SIM_IMAGE_CREDITS, SIM_VIDEO_CREDITS_PER_SECOND, SIM_VIDEO_AUTO_SECONDS, simCost } from './prices';
