/** Parameters explain themselves in the editor: each has help text, and the help says what the values mean. */
import type { INodeProperties } from 'n8n-workflow';

import { FluxApi } from '../../credentials/FluxApi.credentials';
import { fluxImageDescription } from '../../nodes/FluxImage/FluxImage.description';
import { fluxVideoDescription } from '../../nodes/FluxVideo/FluxVideo.description';
const RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'];

const byName = (properties: INodeProperties[], name: string) => {
	const found = properties.find((p) => p.name === name);
	if (!found) throw new Error(`no parameter ${name}`);
	return found;
};

describe.each([
	['FLUX 3 Image', fluxImageDescription.properties],
	['FLUX 3 Video', fluxVideoDescription.properties],
])('%s', (_node, properties) => {
	it('every parameter but the Options collection has help text', () => {
		const silent = properties.filter((p) => p.type !== 'notice' && p.type !== 'collection' && !p.description).map((p) => p.name);
		expect(silent).toEqual([]);
	});

	it('the Seed says what it is: a cache key, never sent upstream, the same seed returns the stored result', () => {
		const seed = byName(properties, 'seed');
		expect(seed.displayName).toBe('Seed (Cache Key)');
		expect(seed.description).toMatch(/never sent to the API/);
		expect(seed.description).toMatch(/same seed with the same inputs returns the stored/);
	});
});

describe('FLUX 3 Image', () => {
	const properties = fluxImageDescription.properties;

	it('Resolution says what every tier means in pixels', () => {
		const resolution = byName(properties, 'resolution');
		expect(resolution.description).toMatch(/768 × 768.*1 megapixel.*4 MP.*16 MP/);
		for (const option of resolution.options as Array<{ value: string; description?: string }>) {
			expect(RESOLUTIONS).toContain(option.value);
			expect(option.description).toMatch(/pixels|megapixel/);
		}
	});

	it('Aspect Ratio explains auto; Grounding what it does and its cost; Safety Tolerance its range', () => {
		expect(byName(properties, 'aspectRatio').description).toMatch(/Auto takes the shape of the first reference image/);
		expect(byName(properties, 'grounding').description).toMatch(/web and image search.*price/);
		// One declaration, a range per model: FLUX 3 Image 0–4, FLUX.2 0–5, each shown for its models.
		const tolerances = properties.filter((p) => p.name === 'safetyTolerance');
		expect(tolerances.map((p) => [p.typeOptions?.maxValue, p.displayOptions?.show?.model])).toEqual([
			[4, ['flux-3-image']],
			[5, ['flux-2-pro', 'flux-2-flex', 'flux-2-max', 'flux-2-klein-4b', 'flux-2-klein-9b']],
		]);
		expect(tolerances[0].description).toMatch(/from 0 \(strictest\) to 4 \(most permissive\), default 2/);
		expect(tolerances[1].description).toMatch(/from 0 \(strictest\) to 5 \(most permissive\), default 2/);
	});
});

describe('the FLUX API credential', () => {
	const credential = new FluxApi();
	const style = byName(credential.properties, 'apiStyle');
	const baseUrl = byName(credential.properties, 'baseUrl');

	it('its Base URL placeholder describes the same service as the default API Style', () => {
		expect(style.default).toBe('relay');
		expect(baseUrl.placeholder).not.toMatch(/bfl\.ai/);
		expect(baseUrl.description).toMatch(/Relay: your relay's root URL.*Black Forest Labs: https:\/\/api\.bfl\.ai/);
	});
});
