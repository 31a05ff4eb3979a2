/**
 * FLUX 3 Video option values shared with the node description (dependency-free, so description files can import
 * it cheaply). Values are stable: saved workflows use them, and they are sent as BFL names them.
 */

/** The model name of the video endpoint (`…/flux-3-video`), written into task items. */
export const VIDEO_MODEL = 'flux-3-video';

/** `t2v` text-to-video, `i2v` image-to-video from keyframes, `v2v` continuation of a clip, `draft_enhance` a draft at full quality. */
export const VIDEO_MODES = ['t2v', 'i2v', 'v2v', 'draft_enhance'] as const;
export const VIDEO_RESOLUTIONS = ['hd', 'fhd'] as const;
export const VIDEO_ASPECT_RATIOS = ['auto', '21:9', '2:1', '16:9', '4:3', '1:1', '3:4', '9:16'] as const;
/** A numeric duration: whole seconds from 5 to 20. */
export const MIN_VIDEO_SECONDS = 5;
export const MAX_VIDEO_SECONDS = 20;
/** Timeout (Minutes) default of a clip job (generation takes minutes). */
export const DEFAULT_VIDEO_TIMEOUT_MINUTES = 30;
/** Keyframes per request, at most. */
export const MAX_KEYFRAMES = 10;
/** Output frame rate: timestamped keyframes must be at least one frame (1/24 s) apart. */
export const VIDEO_FPS = 24;
/** BFL's input limits, on the decoded bytes: keyframe images ≤ 20 MB, a start video ≤ 50 MB. */
export const MAX_KEYFRAME_BYTES = 20 * 1024 * 1024;
export const MAX_START_VIDEO_BYTES = 50 * 1024 * 1024;

export type VideoMode = (typeof VIDEO_MODES)[number];
export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];
export type VideoAspectRatio = (typeof VIDEO_ASPECT_RATIOS)[number];
