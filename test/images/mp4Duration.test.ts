import { makePromptMp4 } from '../../relay-sim/mp4';
import { mp4DurationSeconds } from '../../src/images/mp4Duration';
import { mp4WithDuration } from '../support/mediaBytes';

describe('mp4DurationSeconds', () => {
	it.each([
		['version 0, timescale 1000', mp4WithDuration(18), 18],
		['version 0, timescale 90000', mp4WithDuration(15, { timescale: 90_000 }), 15],
		['version 1', mp4WithDuration(7.5, { version: 1, timescale: 600 }), 7.5],
	])('reads the movie header: %s', (_, bytes, seconds) => {
		expect(mp4DurationSeconds(bytes)).toBe(seconds);
	});

	it('a movie header with a 64-bit box size is found', () => {
		const clip = mp4WithDuration(12);
		const moovAt = clip.indexOf('moov', 0, 'latin1') - 4;
		const moov = clip.subarray(moovAt);
		const large = Buffer.alloc(16);
		large.writeUInt32BE(1, 0);
		large.write('moov', 4, 'latin1');
		large.writeBigUInt64BE(BigInt(moov.length + 8), 8);
		expect(mp4DurationSeconds(Buffer.concat([clip.subarray(0, moovAt), large, moov.subarray(8)]))).toBe(12);
	});

	it.each([
		['a clip with no moov box (the simulator\'s)', makePromptMp4('a clip')],
		['a duration of 0 (a fragmented MP4)', mp4WithDuration(0)],
		['a moov cut short', mp4WithDuration(18).subarray(0, -40)],
		['a few bytes', Buffer.from('ftyp')],
	])('states no duration for %s', (_, bytes) => {
		expect(mp4DurationSeconds(bytes)).toBeUndefined();
	});
});
