/** Clip job defaults the client and the video glue share (dependency-free), and BFL's input limits on clip media. */

/** Timeout (Minutes) default of a clip job (generation takes minutes). */
export const DEFAULT_VIDEO_TIMEOUT_MINUTES = 30;
/** BFL's input limits, on the decoded bytes: keyframe images ≤ 20 MB, a start video ≤ 50 MB. */
export const MAX_KEYFRAME_BYTES = 20 * 1024 * 1024;
export const MAX_START_VIDEO_BYTES = 50 * 1024 * 1024;
