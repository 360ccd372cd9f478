// The small part of Mattermost's webapp plugin API this plugin uses.
// Mattermost publishes no types package for it, so they are declared here.
import type React from 'react';

export interface WebSocketMessage<T = Record<string, unknown>> {
    event: string;
    data: T;
    broadcast?: Record<string, unknown>;
    seq?: number;
}

// What registerRightHandSidebarComponent returns. The three actions are Redux
// actions (plain or thunk, the host decides) to hand to store.dispatch.
export interface RightHandSidebar {
    id: string;
    showRHSPlugin: unknown;
    hideRHSPlugin: unknown;
    toggleRHSPlugin: unknown;
}

export interface PluginRegistry {
    registerRootComponent(component: React.ComponentType): string;
    registerWebSocketEventHandler(event: string, handler: (msg: WebSocketMessage) => void): void;
    registerChannelHeaderButtonAction(
        icon: React.ReactNode,
        action: () => void,
        dropdownText: React.ReactNode,
        tooltipText?: React.ReactNode,
    ): string;
    registerRightHandSidebarComponent(component: React.ComponentType, title: React.ReactNode): RightHandSidebar;

    // Newer Mattermost only, so optional: the app bar on the right, and a hook
    // on every slash command before it is sent.
    registerAppBarComponent?(iconUrl: string, action: () => void, tooltipText: React.ReactNode): string;
    registerSlashCommandWillBePostedHook?(hook: SlashCommandHook): string;
}

// Answers {message, args} to send the command on, or {} to drop it.
export type SlashCommandHook = (message: string, args: unknown) => Promise<{message?: string; args?: unknown}> | {message?: string; args?: unknown};

// The host's Redux store; only dispatch is used.
export interface Store {
    dispatch(action: unknown): unknown;
    getState(): unknown;
}

export interface MattermostPlugin {
    initialize(registry: PluginRegistry, store: Store): void | Promise<void>;
    uninitialize?(): void;
}

// Mattermost's own markdown renderer, exposed on window for plugins.
export interface PostUtils {
    formatText(text: string, options?: Record<string, unknown>): string;
    messageHtmlToComponent(html: string, options?: Record<string, unknown>): React.ReactNode;
}

declare global {
    interface Window {
        registerPlugin(id: string, plugin: MattermostPlugin): void;
        PostUtils?: PostUtils;

        // The host's router history, for in-app navigation without a reload.
        WebappUtils?: {browserHistory?: {push(path: string): void}};

        // Path prefix when Mattermost is served under a subpath, e.g. "/chat".
        basename?: string;
    }
}
