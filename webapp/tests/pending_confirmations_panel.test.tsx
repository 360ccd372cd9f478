import {act, cleanup, render, screen, within} from '@testing-library/react';
import React from 'react';
import {afterEach, describe, expect, it} from 'vitest';

import {PendingConfirmationsPanel} from '../src/components/pending_confirmations_panel';
import {PendingConfirmationStore} from '../src/pending_confirmations';

import {pendingEvent} from './fake_registry';

afterEach(cleanup);

describe('PendingConfirmationsPanel', () => {
    it('renders nothing when there are no pending confirmations', () => {
        const {container} = render(<PendingConfirmationsPanel store={new PendingConfirmationStore()}/>);

        expect(container.innerHTML).toBe('');
        expect(screen.queryByRole('dialog')).toBeNull();
    });

    it('lists each pending confirmation with its title and a link to its confirm page after an event', () => {
        const store = new PendingConfirmationStore();
        render(<PendingConfirmationsPanel store={store}/>);

        act(() => store.handleEvent(pendingEvent({
            confirmations: [
                {id: 'abc123', title: 'Post a message with 2 files to ~town-square'},
                {id: 'def456', title: 'Reply in thread "Release plan"'},
            ],
        })));

        const dialog = screen.getByRole('dialog');
        const items = within(dialog).getAllByRole('listitem');
        expect(items).toHaveLength(2);
        expect(items[0].textContent).toContain('Post a message with 2 files to ~town-square');
        expect(within(items[0]).getByRole('link', {name: 'Open in Mattermost'}).getAttribute('href'))
            .toBe('/plugins/mcp-server/confirm/abc123');
        expect(items[1].textContent).toContain('Reply in thread "Release plan"');
        expect(within(items[1]).getByRole('link', {name: 'Open in Mattermost'}).getAttribute('href'))
            .toBe('/plugins/mcp-server/confirm/def456');
    });

    it('accepts the confirmations as a JSON string, as the Go side may publish them', () => {
        const store = new PendingConfirmationStore();
        render(<PendingConfirmationsPanel store={store}/>);

        act(() => store.handleEvent(pendingEvent({confirmations: JSON.stringify([{id: 'j1', title: 'From JSON'}])})));

        expect(screen.getByText('From JSON')).toBeTruthy();
        expect(screen.getByRole('link').getAttribute('href')).toBe('/plugins/mcp-server/confirm/j1');
    });

    it('shows only the latest event, so an empty list hides the panel again', () => {
        const store = new PendingConfirmationStore();
        const {container} = render(<PendingConfirmationsPanel store={store}/>);

        act(() => store.handleEvent(pendingEvent({confirmations: [{id: 'a', title: 'First'}]})));
        act(() => store.handleEvent(pendingEvent({confirmations: [{id: 'b', title: 'Second'}]})));
        expect(screen.queryByText('First')).toBeNull();
        expect(screen.getByText('Second')).toBeTruthy();

        act(() => store.handleEvent(pendingEvent({confirmations: []})));
        expect(container.innerHTML).toBe('');
    });

    it('escapes the id in the link so it cannot leave the confirm path', () => {
        const store = new PendingConfirmationStore();
        render(<PendingConfirmationsPanel store={store}/>);

        act(() => store.handleEvent(pendingEvent({confirmations: [{id: '../../api/v4/x?y', title: 'Odd'}]})));

        expect(screen.getByRole('link').getAttribute('href'))
            .toBe('/plugins/mcp-server/confirm/..%2F..%2Fapi%2Fv4%2Fx%3Fy');
    });
});
