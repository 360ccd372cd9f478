import {act, cleanup, fireEvent, render, screen, waitFor} from '@testing-library/react';
import React from 'react';
import {afterEach, describe, expect, it, vi} from 'vitest';

import {answeredEvent, fakeRegistry, fakeStore, pendingEvent} from './fake_registry';
import {BASE, detail, fakeServer, ID} from './fake_server';

import {Plugin} from '../src/plugin';

const OTHER = 'fedcba9876543210fedcba9876543210';
const PENDING = 'custom_mcp-server_pending_confirmation';
const ANSWERED = 'custom_mcp-server_confirmation_answered';

afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
});

// Initializes a plugin and renders its root component, as Mattermost would.
function start() {
    const fake = fakeRegistry();
    const store = fakeStore();
    const plugin = new Plugin();
    plugin.initialize(fake.registry, store);
    const Root = fake.roots[0];
    render(<Root/>);
    const emit = (event: string, msg: ReturnType<typeof pendingEvent>) => act(() => fake.handlers.get(event)!(msg));
    return {...fake, store, plugin, emit};
}

describe('Plugin', () => {
    it('registers websocket handlers for the pending and the answered events', () => {
        const {registry} = fakeRegistry();
        new Plugin().initialize(registry, fakeStore());

        expect(registry.registerWebSocketEventHandler.mock.calls.map(([event]) => event)).toEqual([PENDING, ANSWERED]);
    });

    it('registers the modal and the Connect dialog, a sidebar titled "AI confirmations", and a channel header button that toggles that sidebar', () => {
        const {registry, roots, sidebars, headerButtons, sidebarActions} = fakeRegistry();
        const store = fakeStore();
        new Plugin().initialize(registry, store);

        expect(roots).toHaveLength(2);
        expect(sidebars).toHaveLength(1);
        expect(sidebars[0].title).toBe('AI confirmations');
        expect(headerButtons).toHaveLength(2);
        expect(headerButtons[0].dropdownText).toBe('AI confirmations');
        expect(React.isValidElement(headerButtons[0].icon)).toBe(true);

        headerButtons[0].action();
        expect(store.dispatch).toHaveBeenCalledWith(sidebarActions.toggleRHSPlugin);
    });

    it('opens the modal with the fetched detail for the id in a pending-confirmation event', async () => {
        const {calls} = fakeServer({[`GET ${BASE}/${ID}`]: {body: detail({message: 'the full post'})}});
        const {emit} = start();
        expect(screen.queryByRole('dialog')).toBeNull();

        emit(PENDING, pendingEvent({confirmations: [{id: ID, title: 'Post to ~town-square: "hi"'}]}));

        expect(screen.getByRole('dialog').textContent).toContain('Post to ~town-square: "hi"');
        expect(await screen.findByText('the full post')).toBeTruthy();
        expect(calls()).toEqual([`GET ${BASE}/${ID}`]);
    });

    it('accepts the event\'s confirmations as a JSON string, as the Go side may publish them', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail()}});
        const {emit} = start();

        emit(PENDING, pendingEvent({confirmations: JSON.stringify([{id: ID, title: 'From JSON'}])}));

        expect(screen.getByRole('dialog').textContent).toContain('From JSON');
        await screen.findByRole('button', {name: 'Accept'});
    });

    it('closes the modal when the answered event names the confirmation it shows, and not for another one', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail()}});
        const {emit} = start();
        emit(PENDING, pendingEvent({confirmations: [{id: ID, title: 't'}]}));
        await screen.findByRole('button', {name: 'Accept'});

        emit(ANSWERED, answeredEvent(OTHER, 'posted'));
        expect(screen.getByRole('dialog')).toBeTruthy();

        emit(ANSWERED, answeredEvent(ID, 'posted'));
        expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('keeps the modal open saying the assistant withdrew it when the write it shows is withdrawn', async () => {
        let withdrawn = false;
        fakeServer({[`GET ${BASE}/${ID}`]: () => ({body: withdrawn ? detail({state: 'withdrawn', outcome_text: 'Withdrawn: the AI assistant took this back before you answered; nothing was posted.'}) : detail()})});
        const {emit} = start();
        emit(PENDING, pendingEvent({confirmations: [{id: ID, title: 't'}]}));
        await screen.findByRole('button', {name: 'Accept'});

        withdrawn = true;
        emit(ANSWERED, answeredEvent(ID, 'withdrawn'));

        expect((await screen.findByRole('status')).textContent).toContain('Withdrawn: the AI assistant took this back');
        expect(screen.queryByRole('button', {name: 'Accept'})).toBeNull();
    });

    it('keeps the outcome on screen when the answered event is for the answer given in this tab', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail()},
            [`POST ${BASE}/${ID}/decline`]: {body: detail({state: 'declined', outcome_text: 'Declined: nothing was posted.'})},
        });
        const {emit} = start();
        emit(PENDING, pendingEvent({confirmations: [{id: ID, title: 't'}]}));
        fireEvent.click(await screen.findByRole('button', {name: 'Decline'}));
        await screen.findByRole('status');

        emit(ANSWERED, answeredEvent(ID, 'declined'));

        expect(screen.getByRole('status').textContent).toBe('Declined: nothing was posted.');
    });

    it('shows a confirmation announced while another is open only after that one is closed', async () => {
        fakeServer({
            [`GET ${BASE}/${ID}`]: {body: detail({message: 'first post'})},
            [`GET ${BASE}/${OTHER}`]: {body: detail({id: OTHER, message: 'second post'})},
        });
        const {emit} = start();
        emit(PENDING, pendingEvent({confirmations: [{id: ID, title: 'First'}]}));
        await screen.findByText('first post');

        emit(PENDING, pendingEvent({confirmations: [{id: OTHER, title: 'Second'}]}));
        expect(screen.getByText('first post')).toBeTruthy();

        fireEvent.click(screen.getByRole('button', {name: 'Dismiss'}));
        expect(await screen.findByText('second post')).toBeTruthy();
    });

    it('closes the modal on uninitialize', async () => {
        fakeServer({[`GET ${BASE}/${ID}`]: {body: detail()}});
        const {emit, plugin} = start();
        emit(PENDING, pendingEvent({confirmations: [{id: ID, title: 't'}]}));
        await waitFor(() => expect(screen.getByRole('button', {name: 'Accept'})).toBeTruthy());

        act(() => plugin.uninitialize());

        expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('keeps each instance\'s confirmations to itself', () => {
        fakeServer({});
        const first = fakeRegistry();
        const second = fakeRegistry();
        const a = new Plugin();
        const b = new Plugin();
        a.initialize(first.registry, fakeStore());
        b.initialize(second.registry, fakeStore());

        first.handlers.get(PENDING)!(pendingEvent({confirmations: [{id: ID, title: 't'}]}));

        expect(a.confirmations.getSnapshot().modal?.id).toBe(ID);
        expect(b.confirmations.getSnapshot().modal).toBeNull();
    });
});
