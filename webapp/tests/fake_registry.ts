import type React from 'react';
import {vi} from 'vitest';

import type {PluginRegistry, SlashCommandHook, Store, WebSocketMessage} from '../src/mattermost';

// Stands in for the registry Mattermost hands to Plugin.initialize and keeps what
// the plugin registered, so tests can drive it as Mattermost would.
type Handler = (msg: WebSocketMessage) => void;

export function fakeRegistry() {
    const handlers = new Map<string, Handler>();
    const roots: React.ComponentType[] = [];
    const sidebars: Array<{component: React.ComponentType; title: React.ReactNode}> = [];
    const headerButtons: Array<{icon: React.ReactNode; action: () => void; dropdownText: React.ReactNode; tooltipText?: React.ReactNode}> = [];
    const appBar: Array<{iconUrl: string; action: () => void; tooltipText: React.ReactNode}> = [];
    const slashHooks: SlashCommandHook[] = [];
    const sidebarActions = {
        id: 'rhs-1',
        showRHSPlugin: {type: 'SHOW_RHS_PLUGIN', pluggableId: 'rhs-1'},
        hideRHSPlugin: {type: 'HIDE_RHS_PLUGIN', pluggableId: 'rhs-1'},
        toggleRHSPlugin: {type: 'TOGGLE_RHS_PLUGIN', pluggableId: 'rhs-1'},
    };
    const registry = {
        registerWebSocketEventHandler: vi.fn((event: string, handler: Handler) => {
            handlers.set(event, handler);
        }),
        registerRootComponent: vi.fn((component: React.ComponentType) => {
            roots.push(component);
            return `root-${roots.length}`;
        }),
        registerRightHandSidebarComponent: vi.fn((component: React.ComponentType, title: React.ReactNode) => {
            sidebars.push({component, title});
            return sidebarActions;
        }),
        registerChannelHeaderButtonAction: vi.fn((icon: React.ReactNode, action: () => void, dropdownText: React.ReactNode, tooltipText?: React.ReactNode) => {
            headerButtons.push({icon, action, dropdownText, tooltipText});
            return `header-${headerButtons.length}`;
        }),
        registerAppBarComponent: vi.fn((iconUrl: string, action: () => void, tooltipText: React.ReactNode) => {
            appBar.push({iconUrl, action, tooltipText});
            return `appbar-${appBar.length}`;
        }),
        registerSlashCommandWillBePostedHook: vi.fn((hook: SlashCommandHook) => {
            slashHooks.push(hook);
            return `hook-${slashHooks.length}`;
        }),
    } satisfies PluginRegistry;
    return {registry, handlers, roots, sidebars, headerButtons, appBar, slashHooks, sidebarActions};
}

export function fakeStore() {
    return {dispatch: vi.fn(), getState: vi.fn(() => ({}))} satisfies Store;
}

export function pendingEvent(data: Record<string, unknown>): WebSocketMessage {
    return {event: 'custom_mcp-server_pending_confirmation', data, broadcast: {user_id: 'u1'}, seq: 7};
}

export function answeredEvent(id: string, state: string): WebSocketMessage {
    return {event: 'custom_mcp-server_confirmation_answered', data: {id, state}, broadcast: {user_id: 'u1'}, seq: 8};
}
