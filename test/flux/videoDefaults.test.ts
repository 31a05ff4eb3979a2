/** The defaults a clip job takes when its caller gives none (the collector re-attaching after a restart does). */
import { DEFAULT_JOB_TIMEOUT_MS } from '../../src/flux/generateImage';
import { DEFAULT_MAX_VIDEO_BYTES, DEFAULT_VIDEO_JOB_TIMEOUT_MS, videoJobDefaults } from '../../src/flux/generateVideo';

it('a clip job without its own timeout and cap waits the video default (30 min, as the node), not the image 10 min', () => {
	const filled = videoJobDefaults({});
	expect(filled.timeoutMs).toBe(DEFAULT_VIDEO_JOB_TIMEOUT_MS);
	expect(filled.timeoutMs).toBeGreaterThan(DEFAULT_JOB_TIMEOUT_MS);
	expect(filled.maxDownloadBytes).toBe(DEFAULT_MAX_VIDEO_BYTES);
	expect(videoJobDefaults({ timeoutMs: 5, maxDownloadBytes: 7 })).toMatchObject({ timeoutMs: 5, maxDownloadBytes: 7 });
});
