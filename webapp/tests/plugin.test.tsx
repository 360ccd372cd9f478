import {act, cleanup, render, screen} from '@testing-library/react';
import React from 'react';
import {afterEach, describe, expect, it} from 'vitest';

import {Plugin} from '../src/plugin';

import {fakeRegistry, pendingEvent} from './fake_registry';

afterEach(cleanup);

describe('Plugin', () => {
    it('registers exactly one websocket handler, for custom_mcp-server_pending_confirmation', () => {
        const {registry} = fakeRegistry();
        new Plugin().initialize(registry, {});

        expect(registry.registerWebSocketEventHandler).toHaveBeenCalledTimes(1);
        expect(registry.registerWebSocketEventHandler).toHaveBeenCalledWith(
            'custom_mcp-server_pending_confirmation',
            expect.any(Function),
        );
    });

    it('registers one root component', () => {
        const {registry, roots} = fakeRegistry();
        new Plugin().initialize(registry, {});

        expect(registry.registerRootComponent).toHaveBeenCalledTimes(1);
        expect(typeof roots[0]).toBe('function');
    });

    it('shows in its root component what its websocket handler received', () => {
        const {registry, handlers, roots} = fakeRegistry();
        new Plugin().initialize(registry, {});
        const Root = roots[0];
        const handler = handlers.get('custom_mcp-server_pending_confirmation')!;

        render(<Root/>);
        expect(screen.queryByRole('dialog')).toBeNull();

        act(() => handler(pendingEvent({confirmations: [{id: 'c1', title: 'Post to ~town-square'}]})));

        expect(screen.getByRole('link', {name: 'Open in Mattermost'}).getAttribute('href')).toBe(
            '/plugins/mcp-server/confirm/c1',
        );
    });

    it('keeps each instance\'s pending confirmations to itself', () => {
        const first = fakeRegistry();
        const second = fakeRegistry();
        const a = new Plugin();
        const b = new Plugin();
        a.initialize(first.registry, {});
        b.initialize(second.registry, {});

        first.handlers.get('custom_mcp-server_pending_confirmation')!(pendingEvent({confirmations: [{id: 'x', title: 't'}]}));

        expect(a.pending.getSnapshot()).toHaveLength(1);
        expect(b.pending.getSnapshot()).toHaveLength(0);
    });

    it('forgets pending confirmations on uninitialize', () => {
        const {registry, handlers, roots} = fakeRegistry();
        const plugin = new Plugin();
        plugin.initialize(registry, {});
        const Root = roots[0];
        render(<Root/>);
        act(() => handlers.get('custom_mcp-server_pending_confirmation')!(pendingEvent({confirmations: [{id: 'c1', title: 'A'}]})));
        expect(screen.getByRole('dialog')).toBeTruthy();

        act(() => plugin.uninitialize());

        expect(screen.queryByRole('dialog')).toBeNull();
        expect(plugin.pending.latestPayload).toBeNull();
    });
});
