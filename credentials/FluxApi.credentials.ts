import type { ICredentialType, INodeProperties, Icon } from 'n8n-workflow';

/**
 * FLUX API credential: stands in for the ComfyUI pack's "API Settings" node.
 * It is tested by the FLUX nodes (`testedBy: 'fluxApiTest'`), because the cheap
 * authenticated request differs by API style and needs our own URL checks.
 */
export class FluxApi implements ICredentialType {
	name = 'fluxApi';

	displayName = 'FLUX API';

	icon: Icon = { light: 'file:flux.svg', dark: 'file:flux.dark.svg' };

	documentationUrl = 'https://docs.bfl.ai';

	properties: INodeProperties[] = [
		{
			displayName: 'API Style',
			name: 'apiStyle',
			type: 'options',
			default: 'relay',
			options: [
				{
					name: 'Relay (Bearer Token, /bfl/v1/…)',
					value: 'relay',
					description: 'An API relay that passes FLUX requests through to Black Forest Labs',
				},
				{
					name: 'Black Forest Labs (x-key, /v1/…)',
					value: 'bfl',
					description: "Black Forest Labs' own API",
				},
			],
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			// The placeholder matches the default API Style (Relay); the description gives both.
			placeholder: 'https://relay.example.com',
			required: true,
			description:
				"The root of the API, http(s) only, without a path. API Style Relay: your relay's root URL (the node adds /bfl/v1/…). API Style Black Forest Labs: https://api.bfl.ai (the node adds /v1/…).",
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			displayName: 'Daily Credit Limit',
			name: 'dailyCreditLimit',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, numberPrecision: 2 },
			description:
				'At most this many credits (1 credit = $0.01) spent by this account in any 24 hours, counted by every n8n process on the same store folder or Redis; a job that would pass it is not sent. Needs an API that reports cost (BFL does; some relays do not). 0 = no limit.',
		},
		{
			displayName: 'Daily Job Limit',
			name: 'dailyJobLimit',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0, numberPrecision: 0 },
			description: 'At most this many new paid jobs for this account in any 24 hours, counted like the credit limit. Results from the store do not count. 0 = no limit.',
		},
	];
}
