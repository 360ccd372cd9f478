import type React from 'react';
import {vi} from 'vitest';

import type {PluginRegistry, WebSocketMessage} from '../src/mattermost';

// Stands in for the registry Mattermost hands to Plugin.initialize and keeps what
// the plugin registered, so tests can drive it as Mattermost would.
export function fakeRegistry() {
    const handlers = new Map<string, (msg: WebSocketMessage) => void>();
    const roots: React.ComponentType[] = [];
    const registry = {
        registerWebSocketEventHandler: vi.fn((event: string, handler: (msg: WebSocketMessage) => void) => {
            handlers.set(event, handler);
        }),
        registerRootComponent: vi.fn((component: React.ComponentType) => {
            roots.push(component);
            return `root-${roots.length}`;
        }),
    } satisfies PluginRegistry;
    return {registry, handlers, roots};
}

export function pendingEvent(data: Record<string, unknown>): WebSocketMessage {
    return {event: 'custom_mcp-server_pending_confirmation', data, broadcast: {user_id: 'u1'}, seq: 7};
}
