/**
 * The submit lifecycle's one ordered list (src/flux/submitSteps.ts): the list built from a job's options, and the
 * order of the events a real submit through the relay simulator produces (a 429 first, then an acknowledgement):
 * admission → budget → journal → body → acknowledgement, the refund of a POST that created no task, and the endings.
 */
import type { RelaySimulator } from '../../relay-sim';
import type { GenerateOptions, SubmitBudget, SubmitStep } from '../../src/flux';
import type { SubmitAdmission } from '../../src/flux/admission';
import { submitSteps } from '../../src/flux/submitSteps';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { failureOf, generate, submitsFor, uniquePrompt } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

/** Options whose admission, budget and journal write what they see to `events` (`server` counts the POSTs that arrived). */
function recorded(server: () => number) {
	const events: string[] = [];
	const admission: SubmitAdmission = {
		acquire: async () => void events.push('admission: turn'),
		rateLimited: () => (events.push('admission: 429, turn back'), true),
		accepted: () => void events.push('admission: accepted'),
		release: (outcome) => void events.push(`admission: release ${outcome}`),
	};
	const budget: SubmitBudget = {
		reserve: async () => void events.push('budget: reserve'),
		unsent: () => void events.push('budget: refund'),
		accepted: (cost) => void events.push(`budget: accepted ${cost}`),
		ended: (outcome) => void events.push(`budget: ended ${JSON.stringify(outcome)}`),
	};
	const journal: SubmitStep = {
		beforeSend: async () => void events.push(`journal: submitting (server had ${server()})`),
		onSent: () => void events.push(`body leaves (server had ${server()})`),
		onNotCreated: () => void events.push('journal: not created'),
		onAccepted: (task) => void events.push(`journal: submitted ${task.taskId} (server had ${server()})`),
	};
	const opts: GenerateOptions = { admission, budget, steps: [journal] };
	return { events, opts, journal };
}

it('the list is admission, budget, then the caller’s steps (the journal); without hooks it is empty', () => {
	const { opts, journal } = recorded(() => 0);
	const steps = submitSteps(opts);
	expect(steps).toHaveLength(3);
	expect(Object.keys(steps[0])).toContain('beforePost'); // the admission's turn comes before the POST starts
	expect(Object.keys(steps[1])).toEqual(['beforeSend', 'onUnsent', 'onAccepted', 'onEnded']); // the budget
	expect(steps[2]).toBe(journal);
	expect(submitSteps({})).toEqual([]);
});

it('a real submit (429 once, then accepted) runs each event through the list in order: admission → budget → journal → body → acknowledgement', async () => {
	const prompt = uniquePrompt('lifecycle order');
	sim.setFault(prompt, { on: 'submit', status: 429, times: 1 });
	const { events, opts } = recorded(() => submitsFor(sim, prompt));
	const result = await generate(sim, prompt, 'relay', opts);
	expect(result.cost).toEqual(expect.any(Number));
	expect(events).toEqual([
		'admission: turn',
		'budget: reserve',
		'journal: submitting (server had 0)',
		'body leaves (server had 0)',
		// Answered 429: no task. The journal notes it, the reservation goes back, the turn goes back and is waited for again.
		'journal: not created',
		'budget: refund',
		'admission: 429, turn back',
		'admission: turn',
		'budget: reserve',
		'journal: submitting (server had 1)',
		'body leaves (server had 1)',
		// The acknowledgement, down the list.
		'admission: accepted',
		`budget: accepted ${result.cost}`,
		`journal: submitted ${result.taskId} (server had 2)`,
		// Ready, then the job's end (admission first, then the budget).
		'admission: release ready',
		'admission: release ended',
		`budget: ended ${JSON.stringify({ cost: result.cost, ready: true })}`,
	]);
});

it('a step that stops the body after the budget said go: nothing reaches the API, the reservation goes back', async () => {
	const prompt = uniquePrompt('lifecycle stop');
	const { events, opts } = recorded(() => submitsFor(sim, prompt));
	const stop: SubmitStep = { beforeSend: async () => Promise.reject(new Error('claim lost')) };
	const err = await failureOf(generate(sim, prompt, 'relay', { ...opts, steps: [...(opts.steps ?? []), stop] }));
	expect(err.message).toMatch(/claim lost/);
	expect(submitsFor(sim, prompt)).toBe(0);
	expect(events).toEqual(['admission: turn', 'budget: reserve', 'journal: submitting (server had 0)', 'budget: refund', 'admission: release ended', 'budget: ended {"ready":false}']);
});

it('a budget that refuses stops the submit before the journal: nothing journaled, nothing sent, nothing given back', async () => {
	const prompt = uniquePrompt('lifecycle refused');
	const { events, opts } = recorded(() => submitsFor(sim, prompt));
	const refusing: GenerateOptions = { ...opts, budget: { ...opts.budget!, reserve: async () => Promise.reject(new Error('over the limit')) } };
	const err = await failureOf(generate(sim, prompt, 'relay', refusing));
	expect(err.message).toMatch(/over the limit/);
	expect(submitsFor(sim, prompt)).toBe(0);
	expect(events).toEqual(['admission: turn', 'admission: release ended', 'budget: ended {"ready":false}']);
});
