/**
 * The JPEG the simulator returns when a FLUX.2 submit asks for `output_format: "jpeg"`: one small picture (CPython's
 * test image `imghdrdata/python.jpg`, PSF licence) with a comment segment naming the prompt and task, so every
 * task's file differs and a test can tell which prompt it came from.
 */
const BASE = Buffer.from(
	'/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z',
	'base64',
);

/** The JPEG of one task: SOI, a COM segment with `prompt` and `task`, then the picture. */
export function promptJpeg(prompt: string, task: string): Buffer {
	const text = Buffer.from(JSON.stringify({ prompt, task }).slice(0, 60_000), 'utf8');
	const com = Buffer.alloc(4);
	com.writeUInt16BE(0xfffe, 0);
	com.writeUInt16BE(text.length + 2, 2);
	return Buffer.concat([BASE.subarray(0, 2), com, text, BASE.subarray(2)]);
}

/** The prompt a simulated JPEG names (its comment segment), or undefined. */
export function readPromptFromJpeg(jpeg: Buffer): string | undefined {
	if (jpeg.readUInt16BE(0) !== 0xffd8 || jpeg.readUInt16BE(2) !== 0xfffe) return undefined;
	const text = jpeg.subarray(6, 4 + jpeg.readUInt16BE(4)).toString('utf8');
	return (JSON.parse(text) as { prompt?: string }).prompt;
}
