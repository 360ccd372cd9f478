import {act, cleanup, fireEvent, render, screen, within} from '@testing-library/react';
import React from 'react';
import {afterEach, describe, expect, it, vi} from 'vitest';

import {answeredEvent, fakeRegistry, fakeStore, pendingEvent} from './fake_registry';
import {BASE, detail, fakeServer, ID} from './fake_server';

import {Plugin} from '../src/plugin';

const OTHER = 'fedcba9876543210fedcba9876543210';

afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
});

// The plugin's sidebar and root component rendered side by side, as in Mattermost.
function start() {
    const fake = fakeRegistry();
    new Plugin().initialize(fake.registry, fakeStore());
    const Root = fake.roots[0];
    const Sidebar = fake.sidebars[0].component;
    render(
        <>
            <Sidebar/>
            <Root/>
        </>,
    );
    return fake;
}

const list = [
    detail({title: 'Post to ~town-square: "hi"'}),
    detail({id: OTHER, title: 'Post to ~random: "old"', state: 'posted', message: '', notes: []}),
];

describe('the confirmations sidebar', () => {
    it('lists every confirmation from the API with its title and state', async () => {
        fakeServer({[`GET ${BASE}`]: {body: {confirmations: list}}});
        start();

        const items = await screen.findAllByRole('listitem');
        expect(items.map((li) => li.textContent)).toEqual([
            'Post to ~town-square: "hi"Waiting for youOpen',
            'Post to ~random: "old"PostedOpen',
        ]);
    });

    it('says nothing is waiting when the list is empty', async () => {
        fakeServer({[`GET ${BASE}`]: {body: {confirmations: null}}});
        start();

        expect(await screen.findByText('Nothing is waiting for your confirmation.')).toBeTruthy();
    });

    it('shows an error when the list cannot be loaded', async () => {
        fakeServer({[`GET ${BASE}`]: {status: 500, body: {error: 'store unavailable'}}});
        start();

        expect((await screen.findByRole('alert')).textContent).toContain('store unavailable');
    });

    it('opens the modal for a confirmation when its Open button is pressed', async () => {
        fakeServer({
            [`GET ${BASE}`]: {body: {confirmations: list}},
            [`GET ${BASE}/${ID}`]: {body: detail({message: 'full message'})},
        });
        start();

        fireEvent.click(await screen.findByRole('button', {name: 'Open Post to ~town-square: "hi"'}));

        const dialog = await screen.findByRole('dialog');
        expect(await within(dialog).findByText('full message')).toBeTruthy();
        expect(within(dialog).getByRole('button', {name: 'Accept'})).toBeTruthy();
    });

    it('refreshes the list on a pending and on an answered event', async () => {
        let answered = false;
        const {calls} = fakeServer({
            [`GET ${BASE}`]: () => ({body: {confirmations: [detail({state: answered ? 'declined' : 'pending'})]}}),
            [`GET ${BASE}/${ID}`]: {body: detail()},
        });
        const {handlers} = start();
        await screen.findByText('Waiting for you');

        act(() => handlers.get('custom_mcp-server_pending_confirmation')!(pendingEvent({confirmations: [{id: ID, title: 't'}]})));
        answered = true;
        act(() => handlers.get('custom_mcp-server_confirmation_answered')!(answeredEvent(ID, 'declined')));

        expect(await screen.findByText('Declined')).toBeTruthy();
        expect(calls().filter((c) => c === `GET ${BASE}`)).toHaveLength(3);
    });
});
